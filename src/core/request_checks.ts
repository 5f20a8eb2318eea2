/**
 * The semantic checks of a turn request that a schema cannot express
 * (decisions.md §2, §3, §5): vocabulary, model references, routing globs,
 * unique rule names, decimal cost limits, permissions that only tighten. The
 * schema (http/turn_request.ts) has already checked the shape, with intents and
 * efforts as plain strings so that they get their own codes here. Issues are
 * gathered in document order; the first decides the code and `details.path`.
 */
import { isDecimalString } from "./cost.ts";
import { type ErrorCode, fail, ok, type Outcome } from "./errors.ts";
import { isValidGlob } from "./globs.ts";
import { isWellFormedProviderId, parseModelReference } from "./model_reference.ts";
import { findExpansion } from "./permissions.ts";
import type { TurnRequest } from "./turn_request_types.ts";
import { EFFORTS, INTENTS, isEffort, isIntent } from "./vocabulary.ts";

export interface RequestIssue {
  code: ErrorCode;
  path: string;
  message: string;
  extra?: Record<string, unknown>;
}

const TITLES: Partial<Record<ErrorCode, string>> = {
  unknown_intent: "unknown intent",
  unknown_effort: "unknown effort",
  invalid_model_reference: "invalid model reference",
  invalid_provider_name: "invalid provider name",
  permission_expansion: "permission expansion",
};

function intentIssue(path: string, value: unknown): RequestIssue[] {
  return isIntent(value) ? [] : [{
    code: "unknown_intent",
    path,
    message: `'${String(value)}' is not a task intent; expected one of ${INTENTS.join(", ")}`,
  }];
}

function referenceIssue(
  path: string,
  ref: string,
  validProvider: (id: string) => boolean,
): RequestIssue[] {
  const parsed = parseModelReference(ref);
  if (parsed === null) {
    return [{
      code: "invalid_model_reference",
      path,
      message: `'${ref}' is not a model reference; expected 'provider/model'`,
    }];
  }
  if (validProvider(parsed.provider)) return [];
  return [{
    code: "invalid_provider_name",
    path,
    message:
      `'${parsed.provider}' is not a provider id; expected lower-case letters, digits, '_' and '-' (at most 63) or 'openai-compat:<name>'`,
  }];
}

/** Every issue, in document order. */
export function requestIssues(
  request: TurnRequest,
  validProvider: (id: string) => boolean = isWellFormedProviderId,
): RequestIssue[] {
  const { input, policy } = request;
  const issues: RequestIssue[] = [];
  if (input.command !== null) issues.push(...intentIssue("input.command", input.command));
  if (input.explicit_model !== null) {
    issues.push(...referenceIssue("input.explicit_model", input.explicit_model, validProvider));
  }
  const cls = policy.classification;
  issues.push(...intentIssue("policy.classification.default_intent", cls.default_intent));
  cls.rules.forEach((r, i) => {
    issues.push(...intentIssue(`policy.classification.rules[${i}].intent`, r.intent));
  });
  const route = policy.routing.default;
  if (route !== undefined && route !== null) {
    issues.push(...referenceIssue("policy.routing.default.model", route.model, validProvider));
    route.fallbacks.forEach((f, j) => {
      issues.push(...referenceIssue(`policy.routing.default.fallbacks[${j}]`, f, validProvider));
    });
  }
  const names = new Set<string>();
  policy.routing.rules.forEach((rule, i) => {
    const at = `policy.routing.rules[${i}]`;
    if (names.has(rule.name)) {
      issues.push({
        code: "invalid_request",
        path: `${at}.name`,
        message:
          `routing rule name '${rule.name}' is used by an earlier rule; names must be unique`,
      });
    }
    names.add(rule.name);
    if (!isEffort(rule.effort)) {
      issues.push({
        code: "unknown_effort",
        path: `${at}.effort`,
        message: `'${String(rule.effort)}' is not a reasoning effort; expected one of ${
          EFFORTS.join(", ")
        }`,
      });
    }
    if (rule.intent !== null) issues.push(...intentIssue(`${at}.intent`, rule.intent));
    rule.paths.forEach((glob, j) => {
      if (!isValidGlob(glob)) {
        issues.push({
          code: "invalid_request",
          path: `${at}.paths[${j}]`,
          message: `'${glob}' is not a valid glob`,
        });
      }
    });
    issues.push(...referenceIssue(`${at}.model`, rule.model, validProvider));
    rule.fallbacks.forEach((f, j) => {
      issues.push(...referenceIssue(`${at}.fallbacks[${j}]`, f, validProvider));
    });
    const expansion = findExpansion(policy, rule);
    if (expansion !== null) {
      issues.push({
        code: "permission_expansion",
        path: `${at}.required_permissions.permissions.${expansion.tool}`,
        message:
          `rule '${rule.name}' asks for '${expansion.tool}' to be '${expansion.requested}', looser than the project's '${expansion.base}'`,
        extra: { rule: rule.name, ...expansion },
      });
    }
    if (rule.cost_limit !== undefined && !isDecimalString(rule.cost_limit)) {
      issues.push({
        code: "invalid_request",
        path: `${at}.cost_limit`,
        message: `'${rule.cost_limit}' is not a decimal string such as "0.50"`,
      });
    }
  });
  return issues;
}

export function checkTurnRequest(
  request: TurnRequest,
  validProvider?: (id: string) => boolean,
): Outcome<TurnRequest> {
  const issues = requestIssues(request, validProvider);
  if (issues.length === 0) return ok(request);
  const first = issues[0];
  const title = TITLES[first.code] ?? "invalid request body";
  return fail(first.code, `${title}: ${first.path}: ${first.message}`, {
    path: first.path,
    issues: issues.map(({ path, message }) => ({ path, message })),
    ...first.extra,
  });
}
