/**
 * The closed vocabularies of the turn request (decisions.md §3). Lookup tables
 * are `as const` data with derived unions, so validation and types agree.
 */

export const INTENTS = ["chat", "plan", "edit", "review", "summarize", "prompt", "skill"] as const;
export type Intent = typeof INTENTS[number];

export const EFFORTS = ["low", "medium", "high", "xhigh"] as const;
export type Effort = typeof EFFORTS[number];

/** Ordered loosest first: a later mode is tighter. */
export const PERMISSION_MODES = ["allow", "ask", "deny"] as const;
export type PermissionMode = typeof PERMISSION_MODES[number];

/** Context kinds a classification rule may require (decisions.md §3). */
export const CONTEXT_KINDS = [
  "git_diff",
  "git_branch",
  "active_file",
  "referenced_paths",
  "pull_request",
] as const;
export type ContextKind = typeof CONTEXT_KINDS[number];

export type Confidence = "low" | "medium" | "high";

export const DEFAULT_PRIORITY = 1000;
/** Reply reserve when a model does not declare `max_output_tokens` (decisions.md §5). */
export const DEFAULT_REPLY_RESERVE = 4096;
export const CURRENCY = "USD";

export function isIntent(value: unknown): value is Intent {
  return typeof value === "string" && (INTENTS as readonly string[]).includes(value);
}

export function isEffort(value: unknown): value is Effort {
  return typeof value === "string" && (EFFORTS as readonly string[]).includes(value);
}

export function isPermissionMode(value: unknown): value is PermissionMode {
  return typeof value === "string" && (PERMISSION_MODES as readonly string[]).includes(value);
}
