/**
 * Every route of the policy must name providers the service knows
 * (decisions.md §2, §5): a rule, default route or fallback naming an unknown
 * provider is a typo the user must fix, so it is 422 `unknown_provider`
 * naming the field, never a candidate skipped into 503 `fallback_exhausted`.
 * A known provider whose model today's catalog lacks is still only skipped.
 * Malformed references were refused earlier (core/request_checks.ts).
 */
import { fail, ok, type Outcome } from "./errors.ts";
import { parseModelReference } from "./model_reference.ts";
import type { Policy } from "./turn_request_types.ts";

/**
 * The policy's model references in document order, each with the field
 * holding it as a function: the path is spelled only for a reference refused
 * (a policy of a hundred rules is checked on every request).
 */
function* policyReferences(policy: Policy): Generator<[string, () => string]> {
  const route = policy.routing.default;
  if (route !== undefined && route !== null) {
    yield [route.model, () => "policy.routing.default.model"];
    for (let j = 0; j < route.fallbacks.length; j++) {
      yield [route.fallbacks[j], () => `policy.routing.default.fallbacks[${j}]`];
    }
  }
  const rules = policy.routing.rules;
  for (let i = 0; i < rules.length; i++) {
    yield [rules[i].model, () => `policy.routing.rules[${i}].model`];
    for (let j = 0; j < rules[i].fallbacks.length; j++) {
      yield [rules[i].fallbacks[j], () => `policy.routing.rules[${i}].fallbacks[${j}]`];
    }
  }
}

export function checkPolicyProviders(
  policy: Policy,
  known: ReadonlySet<string>,
): Outcome<null> {
  for (const [reference, pathOf] of policyReferences(policy)) {
    const provider = parseModelReference(reference)?.provider;
    if (provider === undefined || known.has(provider)) continue;
    const path = pathOf();
    return fail(
      "unknown_provider",
      `unknown provider: ${path}: '${provider}' is not a configured provider; expected one of ${
        [...known].sort().join(", ")
      }`,
      { path, provider },
    );
  }
  return ok(null);
}
