/**
 * Filling the prompt for the chosen model (decisions.md §6): every required
 * item, or 422 `context_window_exceeded` when they do not fit the budget
 * (window minus reply reserve); then discardable items in priority order while
 * they fit. "While" is taken literally: after the first discardable item that
 * does not fit, every later one is over budget too, so history stays a
 * contiguous run of the newest messages.
 */
import { replyReserve } from "./candidate_walk.ts";
import { type ContextItem, describeItem } from "./context_items.ts";
import { fail, ok, type Outcome } from "./errors.ts";
import { isWorkspaceContent } from "./locality.ts";
import type { ModelDescriptor } from "./model.ts";
import type { Policy } from "./turn_request_types.ts";

export type ExclusionReason = "restricted" | "over budget" | "duplicate" | "local mode deny";

export interface ContextSelection {
  included: ContextItem[];
  excluded: { item: ContextItem; reason: ExclusionReason }[];
  /** Prompt plus included items, in estimated tokens. */
  input_tokens: number;
}

/** Reasons that hold whatever the budget, in precedence order. */
function policyExclusion(
  item: ContextItem,
  model: ModelDescriptor,
  policy: Policy,
): ExclusionReason | null {
  if (item.duplicate) return "duplicate";
  if (item.required) return null;
  if (!model.local && item.constrained) return "restricted";
  if (model.local && policy.privacy.local.mode === "deny" && isWorkspaceContent(item)) {
    return "local mode deny";
  }
  return null;
}

export function fillContext(
  items: readonly ContextItem[],
  model: ModelDescriptor,
  policy: Policy,
  promptTokens: number,
): Outcome<ContextSelection> {
  const budget = model.max_context_tokens - replyReserve(model);
  const required = items.filter((i) => i.required && !i.duplicate);
  let used = required.reduce((sum, i) => sum + i.tokens, promptTokens);
  if (used > budget) {
    return fail(
      "context_window_exceeded",
      `context window exceeded: the required context needs ${used} tokens, '${model.provider}/${model.model}' leaves ${budget}`,
      { provider: model.provider, model: model.model, required_tokens: used, budget },
    );
  }
  const included: ContextItem[] = [];
  const excluded: ContextSelection["excluded"] = [];
  let full = false;
  for (const item of items) {
    const reason = policyExclusion(item, model, policy);
    if (reason !== null) excluded.push({ item, reason });
    else if (item.required) included.push(item);
    else if (!full && used + item.tokens <= budget) {
      included.push(item);
      used += item.tokens;
    } else {
      full = true;
      excluded.push({ item, reason: "over budget" });
    }
  }
  return ok({ included, excluded, input_tokens: used });
}

export function includedStrings(selection: ContextSelection): string[] {
  return selection.included.map(describeItem);
}

export function excludedStrings(selection: ContextSelection): string[] {
  return selection.excluded.map(({ item, reason }) => `${describeItem(item)} (${reason})`);
}

/** Workspace paths of included content, for `pathsNeedingApproval`. */
export function includedWorkspacePaths(selection: ContextSelection): string[] {
  return [...new Set(selection.included.flatMap((i) => i.paths))];
}
