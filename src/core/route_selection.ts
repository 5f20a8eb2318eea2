/**
 * Choosing a route when no override is given (decisions.md §5): routing rules
 * by ascending priority (ties in order), first match wins, conditions ANDed;
 * else `routing.default`; else 422 `no_route`.
 */
import { rulesInOrder } from "./classification.ts";
import { fail, ok, type Outcome } from "./errors.ts";
import { type PathList, pathList, routingMatchesAny } from "./globs.ts";
import type { Policy, Route, RoutingRule } from "./turn_request_types.ts";
import type { Intent } from "./vocabulary.ts";

export type RuleMatchBasis = "intent and path" | "path" | "intent" | "catch-all";

export type RouteChoice =
  | { kind: "rule"; rule: RoutingRule; index: number; basis: RuleMatchBasis }
  | { kind: "default"; route: Route };

/** The basis of a match, or `null` when an intent or path condition fails. */
export function matchRoutingRule(
  rule: RoutingRule,
  intent: Intent,
  relevantPaths: PathList,
): RuleMatchBasis | null {
  const byIntent = rule.intent !== null;
  const byPath = rule.paths.length > 0;
  if (byIntent && rule.intent !== intent) return null;
  if (byPath && !routingMatchesAny(rule.paths, relevantPaths)) return null;
  if (byIntent && byPath) return "intent and path";
  if (byPath) return "path";
  if (byIntent) return "intent";
  return "catch-all";
}

export function selectRoute(
  policy: Policy,
  intent: Intent,
  relevantPaths: readonly string[],
): Outcome<RouteChoice> {
  const rules = policy.routing.rules;
  const paths = pathList(relevantPaths);
  for (const index of rulesInOrder(rules)) {
    const basis = matchRoutingRule(rules[index], intent, paths);
    if (basis !== null) return ok({ kind: "rule", rule: rules[index], index, basis });
  }
  const route = policy.routing.default;
  if (route !== undefined && route !== null) return ok({ kind: "default", route });
  return fail(
    "no_route",
    `no route: no routing rule matched intent '${intent}' and no default route is set`,
    {
      intent,
    },
  );
}

/** The route's model references in the order they are tried. */
export function candidateReferences(choice: RouteChoice): string[] {
  const route = choice.kind === "rule" ? choice.rule : choice.route;
  return [route.model, ...route.fallbacks];
}

export function choiceReason(choice: RouteChoice): string {
  if (choice.kind === "default") {
    return `no rule matched; using the default route to '${choice.route.model}'`;
  }
  const { rule, basis } = choice;
  return basis === "catch-all"
    ? `rule '${rule.name}' matched as a catch-all`
    : `rule '${rule.name}' matched on ${basis}`;
}
