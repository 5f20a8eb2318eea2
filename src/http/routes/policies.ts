/** /api/v1/policies: the caller's named policies, each a list of immutable versions (decisions.md §12). */
import { ServiceError } from "../../core/errors.ts";
import {
  deletePolicy,
  findPolicy,
  insertPolicyVersion,
  listPolicyNames,
  type NamedPolicy,
} from "../../store/policies.ts";
import { readJsonObject } from "../body.ts";
import type { Endpoint, RequestContext } from "../context.ts";
import { jsonResponse } from "../error_response.ts";
import { parsePolicy, POLICY_NAME } from "../policy_body.ts";

/** The path's policy name; one that no policy could have is 422 `invalid_request` naming `name`. */
function nameParam(ctx: RequestContext): string {
  const name = ctx.params.name;
  if (!POLICY_NAME.test(name)) {
    throw ServiceError.of(
      "invalid_request",
      `invalid policy name: "${name}"; expected lower-case letters, digits, '_', '.' and '-', starting with a letter or digit, at most 64 characters`,
      { path: "name" },
    );
  }
  return name;
}

/** The path's version: a whole number from 1 (422 `invalid_request` naming `version` otherwise). */
function versionParam(ctx: RequestContext): number {
  const raw = ctx.params.version;
  if (!/^[1-9][0-9]{0,9}$/.test(raw) || Number(raw) > 2_147_483_647) {
    throw ServiceError.of(
      "invalid_request",
      `invalid policy version: "${raw}"; expected a whole number from 1`,
      { path: "version" },
    );
  }
  return Number(raw);
}

function notFound(name: string, version?: number): ServiceError {
  return version === undefined
    ? ServiceError.of("not_found", `policy not found: "${name}"`)
    : ServiceError.of(
      "not_found",
      `policy version not found: "${name}" version ${version}`,
    );
}

function policyView(p: NamedPolicy) {
  return {
    name: p.name,
    version: p.version,
    created_at: p.created_at.toISOString(),
    policy: p.policy,
  };
}

/** Stores the body as the next version of the name: 201 with the version made. */
export const putPolicy: Endpoint = {
  auth: "bearer",
  async handle(ctx) {
    const name = nameParam(ctx);
    const body = await readJsonObject(
      ctx.request,
      ctx.deps.config.limits.maxRequestBodyBytes,
    );
    const policy = parsePolicy(body);
    if (!policy.ok) throw new ServiceError(policy.failure);
    const stored = await insertPolicyVersion(ctx.deps.db, {
      userId: ctx.principal.userId,
      name,
      policy: policy.value,
      now: ctx.deps.now(),
    });
    return jsonResponse(policyView(stored), 201);
  },
};

export const listPolicies: Endpoint = {
  auth: "bearer",
  async handle(ctx) {
    const rows = await listPolicyNames(ctx.deps.db, ctx.principal.userId);
    return jsonResponse({
      policies: rows.map((r) => ({
        name: r.name,
        version: r.version,
        created_at: r.created_at.toISOString(),
      })),
    });
  },
};

export const getPolicy: Endpoint = {
  auth: "bearer",
  async handle(ctx) {
    const name = nameParam(ctx);
    const found = await findPolicy(
      ctx.deps.db,
      ctx.principal.userId,
      name,
      null,
    );
    if (found === null) throw notFound(name);
    return jsonResponse(policyView(found));
  },
};

export const getPolicyVersion: Endpoint = {
  auth: "bearer",
  async handle(ctx) {
    const name = nameParam(ctx);
    const version = versionParam(ctx);
    const found = await findPolicy(
      ctx.deps.db,
      ctx.principal.userId,
      name,
      version,
    );
    if (found === null) throw notFound(name, version);
    return jsonResponse(policyView(found));
  },
};

/** Removes the name and all its versions; turns that used it keep naming it in their traces. */
export const deletePolicyEndpoint: Endpoint = {
  auth: "bearer",
  async handle(ctx) {
    const name = nameParam(ctx);
    if (!(await deletePolicy(ctx.deps.db, ctx.principal.userId, name))) {
      throw notFound(name);
    }
    return jsonResponse({ deleted: true });
  },
};
