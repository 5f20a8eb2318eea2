/**
 * Every route of the policy must name providers the service knows
 * (decisions.md §2, §5): a rule, default route or fallback naming an unknown
 * provider is a typo the user must fix, so it is 422 `unknown_provider`
 * naming the field, never a candidate skipped into 503 `fallback_exhausted`.
 * A known provider whose model today's catalog lacks is still only skipped.
 * Malformed references were refused earlier (core/request_checks.ts).
 */
import { fail, ok, type Outcome } from "./errors.ts";
import { referenceProvider } from "./model_reference.ts";
import type { Policy } from "./turn_request_types.ts";

/**
 * The provider `reference` names when the service does not know it; null when
 * it does (or names none: malformed references were refused earlier). A known
 * provider is recognised in place, without cutting the reference: three
 * hundred references a request would be as many new strings. Provider ids
 * hold no `/`, so a known one followed by `/` is the reference's provider.
 */
function unknownProvider(reference: string, known: ReadonlySet<string>): string | null {
  for (const provider of known) {
    if (
      reference.length > provider.length + 1 && reference.charCodeAt(provider.length) === SLASH &&
      reference.startsWith(provider)
    ) return null;
  }
  return referenceProvider(reference);
}

const SLASH = "/".charCodeAt(0);

/**
 * The first reference of a route whose provider is unknown, by its field
 * (`model`, `fallbacks[j]`); null when every one is known. Plain loops: a
 * policy of a hundred rules is checked on every request.
 */
function unknownInRoute(
  route: { model: string; fallbacks: readonly string[] },
  known: ReadonlySet<string>,
): { field: string; provider: string } | null {
  const provider = unknownProvider(route.model, known);
  if (provider !== null) return { field: "model", provider };
  for (let j = 0; j < route.fallbacks.length; j++) {
    const fallback = unknownProvider(route.fallbacks[j], known);
    if (fallback !== null) return { field: `fallbacks[${j}]`, provider: fallback };
  }
  return null;
}

export function checkPolicyProviders(
  policy: Policy,
  known: ReadonlySet<string>,
): Outcome<null> {
  const route = policy.routing.default;
  const inDefault = route === undefined || route === null ? null : unknownInRoute(route, known);
  if (inDefault !== null) {
    return refused(`policy.routing.default.${inDefault.field}`, inDefault.provider, known);
  }
  const rules = policy.routing.rules;
  for (let i = 0; i < rules.length; i++) {
    const inRule = unknownInRoute(rules[i], known);
    if (inRule !== null) {
      return refused(`policy.routing.rules[${i}].${inRule.field}`, inRule.provider, known);
    }
  }
  return ok(null);
}

function refused(path: string, provider: string, known: ReadonlySet<string>): Outcome<null> {
  return fail(
    "unknown_provider",
    `unknown provider: ${path}: '${provider}' is not a configured provider; expected one of ${
      [...known].sort().join(", ")
    }`,
    { path, provider },
  );
}
