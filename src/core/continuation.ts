/**
 * Continuations (interface.md "POST …/continue", decisions.md §7): the tagged
 * messages that advance a run, which pause each answers, and the
 * `allowed_continuations` advertised with every turn outcome.
 */
import type { Decision } from "./approvals.ts";
import type { PauseKind } from "./run_state.ts";
import type { Envelope } from "./sealed_envelope.ts";

export const CONTINUATION_KINDS = [
  "tool_results",
  "approval_decisions",
  "decrypted",
  "sealed",
  "inject",
  "break",
] as const;
export type ContinuationKind = typeof CONTINUATION_KINDS[number];

export const TURN_STATUSES = [
  "completed",
  "awaiting_tool",
  "awaiting_approval",
  "awaiting_decrypt",
  "awaiting_encrypt",
  "idle",
  "error",
] as const;
export type TurnStatus = typeof TURN_STATUSES[number];

export interface ToolResultInput {
  call_id: string;
  content?: string;
  is_error?: boolean;
  decision?: Decision;
}

export interface ApprovalDecisionInput {
  approval_id: string;
  decision: Decision;
  reason?: string | null;
}

export interface InjectedMessage {
  text?: string;
  ciphertext?: Envelope;
}

export type EnvelopeMap = Record<string, Envelope>;

/** The validated body of `POST …/continue` (http/continue_request.ts builds it). */
export type Continuation =
  | { type: "tool_results"; data: { results: ToolResultInput[]; encrypted?: EnvelopeMap } }
  | {
    type: "approval_decisions";
    data: { decisions: ApprovalDecisionInput[]; encrypted?: EnvelopeMap };
  }
  | { type: "decrypted"; data: { plaintext: Record<string, string>; encrypted?: EnvelopeMap } }
  | { type: "sealed"; data: { encrypted: EnvelopeMap } }
  | { type: "inject"; data: { messages: InjectedMessage[] } }
  | { type: "break" };

/** The continuation kind that answers each pause. */
export const ANSWERS: Readonly<Record<PauseKind, ContinuationKind>> = {
  tool: "tool_results",
  approval: "approval_decisions",
  decrypt: "decrypted",
  encrypt: "sealed",
};

/**
 * What a waiting run accepts (decisions.md §7). Sealing cannot be interrupted
 * by an inject: the router-authored content would never be stored.
 */
export function pauseContinuations(kind: PauseKind): ContinuationKind[] {
  return kind === "encrypt" ? ["sealed", "break"] : [ANSWERS[kind], "inject", "break"];
}

/** The pause a waiting status stands for; `completed` pauses only in an encrypted session. */
export function pauseOfStatus(status: TurnStatus, encrypted: boolean): PauseKind | null {
  switch (status) {
    case "awaiting_tool":
      return "tool";
    case "awaiting_approval":
      return "approval";
    case "awaiting_decrypt":
      return "decrypt";
    case "awaiting_encrypt":
      return "encrypt";
    case "completed":
      return encrypted ? "encrypt" : null;
    default:
      return null;
  }
}

/** `allowed_continuations` of a turn outcome; terminal outcomes get `[]`. */
export function allowedContinuations(status: TurnStatus, encrypted: boolean): ContinuationKind[] {
  const pause = pauseOfStatus(status, encrypted);
  return pause === null ? [] : pauseContinuations(pause);
}
