/**
 * The turn request body of execute and preview (interface.md "Turn request
 * body", decisions.md §2–§3): the arktype schema with every default, unknown
 * fields dropped at every depth, then the semantic checks of
 * core/request_checks.ts. Intents and efforts are plain strings in the schema
 * so that a bad one gets its own code (`unknown_intent`, `unknown_effort`).
 */
import { compiled, object, PlainObject, type } from "./ark.ts";
import { type ErrorCode, fail, type Outcome } from "../core/errors.ts";
import { CAPABILITIES } from "../core/model.ts";
import { checkTurnRequest } from "../core/request_checks.ts";
import type { TurnRequest } from "../core/turn_request_types.ts";
import { formatPath } from "./validation.ts";

const Mode = type("'allow' | 'ask' | 'deny'");
const emptyList = () => [];

const TurnInput = object({
  text: "string",
  command: "string | null = null",
  explicit_model: "string | null = null",
});

const Workspace = object({
  root: "string | null = null",
  git_branch: "string | null = null",
  git_diff: "string | null = null",
  referenced_paths: type("string[]").default(emptyList),
  active_file: "string | null = null",
});

const ClassificationRule = object({
  intent: "string",
  priority: "number.integer >= 0 = 1000",
  "keywords?": "string[]",
  "requires_any_context?": "string[]",
});

const Classification = object({
  default_intent: "string = 'chat'",
  rules: ClassificationRule.array().default(emptyList),
});

const Route = object({ model: "string", fallbacks: type("string[]").default(emptyList) });

const Capabilities = object(
  Object.fromEntries(CAPABILITIES.map((c) => [`${c}?`, "boolean"])) as Record<string, "boolean">,
);

const Permissions = object({ "[string]": Mode });
const PermissionSet = object({ permissions: Permissions.default(() => ({})) });

const RoutingRule = object({
  name: "string",
  priority: "number.integer = 1000",
  effort: "string = 'medium'",
  intent: "string | null = null",
  paths: type("string[]").default(emptyList),
  local_only: "boolean = false",
  "requires_capabilities?": Capabilities,
  model: "string",
  fallbacks: type("string[]").default(emptyList),
  "required_permissions?": PermissionSet,
  "cost_limit?": "string",
});

const Routing = object({
  "default?": Route.or("null"),
  rules: RoutingRule.array().default(emptyList),
});

const Privacy = object({
  restricted_paths: type("string[]").default(emptyList),
  remote: object({ mode: Mode.default("ask"), blocked_paths: type("string[]").default(emptyList) })
    .default(() => ({ mode: "ask" as const, blocked_paths: [] })),
  local: object({ mode: Mode.default("allow") }).default(() => ({ mode: "allow" as const })),
});

const Policy = object({
  "version?": "number.integer",
  "source?": "string",
  classification: Classification.default(() => ({ default_intent: "chat", rules: [] })),
  routing: Routing.default(() => ({ rules: [] })),
  tools: PermissionSet.default(() => ({ permissions: {} })),
  privacy: Privacy.default(() => ({
    restricted_paths: [],
    remote: { mode: "ask" as const, blocked_paths: [] },
    local: { mode: "allow" as const },
  })),
  "caching?": "'auto' | 'off'",
});

const LocalPreferences = object({
  auto_apply: "boolean = false",
  local_only: "boolean = false",
  no_network: "boolean = false",
});

const Named = object({ name: "string", content: "string" });

const Attachments = object({
  files: object({
    path: "string",
    content: "string",
    "content_hash?": "string",
    required: "boolean = false",
  }).array(),
  instructions: object({ source: "string", content: "string" }).array(),
  invoked_skills: Named.array().default(emptyList),
  available_skills: Named.array().default(emptyList),
});

/** A fresh copy, for each request, of what `part` makes of `{}`: every default filled in. */
function filledDefaults(part: { assert(value: unknown): unknown }) {
  const text = JSON.stringify(part.assert({}));
  return () => JSON.parse(text);
}

const requestFields = {
  input: TurnInput,
  workspace: Workspace.default(filledDefaults(Workspace)),
  policy: Policy.default(filledDefaults(Policy)),
  local_preferences: LocalPreferences.default(filledDefaults(LocalPreferences)),
  attachments: Attachments.default(() => ({
    files: [],
    instructions: [],
    invoked_skills: [],
    available_skills: [],
  })),
};

const TurnRequestShape = object(requestFields).onDeepUndeclaredKey("delete");

/** The same request with its policy taken as it is: one validated before (see `knownPolicies`). */
const KnownPolicyShape = object({ ...requestFields, policy: PlainObject })
  .onDeepUndeclaredKey("delete");

/**
 * The schema as requests use it: it fills defaults into the parsed body and
 * deletes its unknown fields in place, where arktype would first deep-clone
 * every body (a tenth of a preview's CPU). A body is parsed afresh for each
 * request, and a caller that needs an unknown field (`input.ciphertext`) takes
 * it before validating.
 */
export const TurnRequestSchema = compiled(TurnRequestShape, { clone: false });

const KnownPolicySchema = compiled(KnownPolicyShape, { clone: false });

/**
 * Policies that passed the schema, as it left them (defaults filled in,
 * unknown fields gone), as JSON text keyed by the JSON text of the policy the
 * body carried. A client sends the same policy with every turn, and its
 * validation was most of a turn start's: with a policy found here, only the
 * rest of the body is validated and the policy is a fresh copy of the one
 * validated before (JSON in, JSON out: the same policy in gives the same
 * request out). The oldest entry goes first; large policies are not kept.
 */
const knownPolicies = new Map<string, string>();
const KNOWN_POLICIES = 64;
const KNOWN_POLICY_MAX_CHARS = 16 * 1024;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The body validated by the schema; unknown fields deleted and defaults filled in place. */
function validated(body: unknown): ReturnType<typeof TurnRequestSchema> {
  const policy = isPlainObject(body) ? body.policy : undefined;
  if (!isPlainObject(policy)) return TurnRequestSchema(body);
  const key = JSON.stringify(policy);
  if (key.length > KNOWN_POLICY_MAX_CHARS) return TurnRequestSchema(body);
  const known = knownPolicies.get(key);
  if (known === undefined) {
    const out = TurnRequestSchema(body);
    if (out instanceof type.errors) return out;
    if (knownPolicies.size >= KNOWN_POLICIES) {
      knownPolicies.delete(knownPolicies.keys().next().value!);
    }
    const text = JSON.stringify(out.policy);
    knownPolicies.set(key, text);
    // The copy a later request gets, here too, so the first request is no different.
    (out as Record<string, unknown>).policy = JSON.parse(text);
    return out;
  }
  const out = KnownPolicySchema(body);
  if (out instanceof type.errors) return out;
  // In place, where the body had it: the request's fields keep their order.
  (out as Record<string, unknown>).policy = JSON.parse(known);
  return out as ReturnType<typeof TurnRequestSchema>;
}

/**
 * The most specific code for a shape failure (decisions.md §2). A field that
 * is missing is not malformed: no specific code describes an absent intent
 * or model, so it is `invalid_request` like any other missing field.
 */
function codeForIssue(issue: { path: readonly PropertyKey[]; code: string }): ErrorCode {
  if (issue.code === "required") return "invalid_request";
  const last = issue.path[issue.path.length - 1];
  const parent = issue.path[issue.path.length - 2];
  if (last === "intent" || last === "default_intent" || last === "command") return "unknown_intent";
  if (last === "effort") return "unknown_effort";
  if (last === "model" || last === "explicit_model" || parent === "fallbacks") {
    return "invalid_model_reference";
  }
  return "invalid_request";
}

/**
 * Validates a parsed JSON body into a `TurnRequest` with every default filled
 * in. The body becomes that request: unknown fields are deleted from it.
 */
export function parseTurnRequest(body: unknown): Outcome<TurnRequest> {
  const out = validated(body);
  if (out instanceof type.errors) {
    const issues = out.map((e) => ({ path: formatPath(e.path), message: e.message }));
    const first = issues[0];
    return fail(
      codeForIssue(out[0]),
      `invalid request body: ${first.message}`,
      { path: first.path, issues },
    );
  }
  // The schema leaves intents and efforts as strings; the checks narrow them.
  return checkTurnRequest(out as unknown as TurnRequest);
}
