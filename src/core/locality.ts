/**
 * When a turn must stay on a local model (decisions.md §5), and when local
 * models are barred (decisions.md §6, `privacy.local.mode` deny).
 */
import type { ContextItem } from "./context_items.ts";
import type { RoutingRule, TurnRequest } from "./turn_request_types.ts";

export type LocalReason =
  | "constrained required content"
  | "local_only preference"
  | "no_network preference"
  | "local_only rule"
  | "remote mode deny";

/**
 * The five sources, in this order: required content that is constrained,
 * `local_preferences.local_only`, `local_preferences.no_network`, a matched
 * `local_only` rule, and `privacy.remote.mode` deny. Empty: remote is allowed.
 */
export function localRequirement(
  request: TurnRequest,
  items: readonly ContextItem[],
  matchedRule: RoutingRule | null,
): LocalReason[] {
  const reasons: LocalReason[] = [];
  if (items.some((i) => i.required && !i.duplicate && i.constrained)) {
    reasons.push("constrained required content");
  }
  if (request.local_preferences.local_only) reasons.push("local_only preference");
  if (request.local_preferences.no_network) reasons.push("no_network preference");
  if (matchedRule?.local_only === true) reasons.push("local_only rule");
  if (request.policy.privacy.remote.mode === "deny") reasons.push("remote mode deny");
  return reasons;
}

/** Content from workspace paths: attachment files, the git diff, path-bearing tool calls. */
export function isWorkspaceContent(item: ContextItem): boolean {
  return item.paths.length > 0 || item.kind === "file" || item.kind === "git diff";
}

/** `privacy.local.mode` deny with required workspace content makes local models ineligible. */
export function localModelsBarred(request: TurnRequest, items: readonly ContextItem[]): boolean {
  return request.policy.privacy.local.mode === "deny" &&
    items.some((i) => i.required && !i.duplicate && isWorkspaceContent(i));
}
