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

/** The policy's model references with the field holding each, in document order. */
export function policyReferences(policy: Policy): { path: string; reference: string }[] {
  const out: { path: string; reference: string }[] = [];
  const route = policy.routing.default;
  if (route !== undefined && route !== null) {
    out.push({ path: "policy.routing.default.model", reference: route.model });
    route.fallbacks.forEach((reference, j) =>
      out.push({ path: `policy.routing.default.fallbacks[${j}]`, reference })
    );
  }
  policy.routing.rules.forEach((rule, i) => {
    out.push({ path: `policy.routing.rules[${i}].model`, reference: rule.model });
    rule.fallbacks.forEach((reference, j) =>
      out.push({ path: `policy.routing.rules[${i}].fallbacks[${j}]`, reference })
    );
  });
  return out;
}

export function checkPolicyProviders(
  policy: Policy,
  known: ReadonlySet<string>,
): Outcome<null> {
  for (const { path, reference } of policyReferences(policy)) {
    const provider = parseModelReference(reference)?.provider;
    if (provider === undefined || known.has(provider)) continue;
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
