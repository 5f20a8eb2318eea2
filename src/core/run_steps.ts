/**
 * What the run does after a model reply and after a `break` (interface.md
 * "Turn loop", "Run lifecycle"; decisions.md §7, §8): the small decisions
 * the orchestrator branches on, kept here so they are tested on plain data.
 */
import type { ToolMediation } from "./tool_mediation.ts";

export type ReplyStep =
  /** No tool calls: the run completes (an encrypted one first waits for `sealed`). */
  | "complete"
  /** Plan mode and no tool calls: the reply is a plan; pause for a `plan` approval. */
  | "plan_approval"
  /** Client-bound tool calls: pause with `awaiting_tool`. */
  | "await_client"
  /** Every call answered by the service (denied, memory): call the model again at once. */
  | "call_model";

/** `mediation` is `mediateToolCalls` of the reply's calls; null when it made none. */
export function stepAfterReply(planMode: boolean, mediation: ToolMediation | null): ReplyStep {
  if (mediation === null || mediation.order.length === 0) {
    return planMode ? "plan_approval" : "complete";
  }
  return mediation.next;
}

/**
 * `break`: the run goes idle, except that an encrypted turn with partial
 * output answers `awaiting_encrypt` so the client can seal the partial.
 */
export function breakOutcome(
  encrypted: boolean,
  hasPartialOutput: boolean,
): "idle" | "awaiting_encrypt" {
  return encrypted && hasPartialOutput ? "awaiting_encrypt" : "idle";
}
