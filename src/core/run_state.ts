/**
 * The run state machine (interface.md "Run lifecycle"): `idle`, `running`,
 * `awaiting_client`, `error`, and what a waiting run keeps of its pause. A
 * snapshot is plain JSON so the store can persist it as it is; it holds ids,
 * names and content references only, never content, so an encrypted session
 * stores nothing readable in it (decisions.md §8).
 */
import type { ApprovalRef, PendingApproval } from "./approvals.ts";
import { approvalRef } from "./approvals.ts";
import type { ServiceResult, ToolMediation } from "./tool_mediation.ts";

export const RUN_STATES = ["idle", "running", "awaiting_client", "error"] as const;
export type RunState = typeof RUN_STATES[number];

export const PAUSE_KINDS = ["tool", "approval", "decrypt", "encrypt"] as const;
export type PauseKind = typeof PAUSE_KINDS[number];

/** A client-bound call still waiting for its result. */
export interface PausedCall {
  call_id: string;
  name: string;
  requires_approval: "allow" | "ask";
}

/** `to_encrypt` lists the references the answering continuation must seal. */
export type Pause =
  | {
    kind: "tool";
    /** Every call of the reply, in the model's order. */
    order: string[];
    calls: PausedCall[];
    /** Results the service already wrote (denied, memory); never user text. */
    service_results: ServiceResult[];
    to_encrypt: string[];
  }
  | { kind: "approval"; approvals: ApprovalRef[]; to_encrypt: string[] }
  | { kind: "decrypt"; to_decrypt: string[]; to_encrypt: string[] }
  /** `awaiting_encrypt`, and the `completed` turn of an encrypted session. */
  | { kind: "encrypt"; to_encrypt: string[] };

export interface RunSnapshot {
  state: RunState;
  /** Set exactly when `state` is `awaiting_client`. */
  pause: Pause | null;
}

export const IDLE_RUN: RunSnapshot = { state: "idle", pause: null };

export function toolPause(
  mediation: ToolMediation,
  memoryResults: readonly ServiceResult[],
  toEncrypt: readonly string[] = [],
): Pause {
  return {
    kind: "tool",
    order: [...mediation.order],
    calls: mediation.tool_requests.map((r) => ({
      call_id: r.call_id,
      name: r.name,
      requires_approval: r.requires_approval,
    })),
    service_results: [...mediation.service_results, ...memoryResults],
    to_encrypt: [...toEncrypt],
  };
}

export function approvalPause(
  approvals: readonly PendingApproval[],
  toEncrypt: readonly string[] = [],
): Pause {
  return { kind: "approval", approvals: approvals.map(approvalRef), to_encrypt: [...toEncrypt] };
}

export function decryptPause(
  toDecrypt: readonly string[],
  toEncrypt: readonly string[] = [],
): Pause {
  return { kind: "decrypt", to_decrypt: [...toDecrypt], to_encrypt: [...toEncrypt] };
}

export function encryptPause(toEncrypt: readonly string[]): Pause {
  return { kind: "encrypt", to_encrypt: [...toEncrypt] };
}

export type RunEvent =
  /** execute admitted: from idle or error, or superseding a waiting run. */
  | { type: "start" }
  /** The turn needs the client: tool calls, an approval, a decrypt or encrypt step. */
  | { type: "pause"; pause: Pause }
  /** A continuation answering the pause, or an inject on a waiting run. */
  | { type: "resume" }
  /** inject on a running turn: it is cancelled and the next one starts. */
  | { type: "supersede" }
  /** The model stopped without tool calls, or `sealed` stored the last of it. */
  | { type: "complete" }
  | { type: "fail" }
  /** An error is surfaced once; then the session is usable again. */
  | { type: "recover" }
  | { type: "break" };

const running: RunSnapshot = { state: "running", pause: null };
const idle: RunSnapshot = IDLE_RUN;

function illegal(run: RunSnapshot, event: RunEvent): never {
  // A refused request never reaches here (admission answers it); this is a bug.
  throw new Error(`illegal run transition: '${event.type}' from '${run.state}'`);
}

export function applyRunEvent(run: RunSnapshot, event: RunEvent): RunSnapshot {
  const s = run.state;
  switch (event.type) {
    case "start":
      return s === "running" ? illegal(run, event) : running;
    case "pause":
      return s === "running"
        ? { state: "awaiting_client", pause: event.pause }
        : illegal(run, event);
    case "resume":
      return s === "awaiting_client" ? running : illegal(run, event);
    case "supersede":
      return s === "running" ? running : illegal(run, event);
    case "complete":
      if (s === "running" || (s === "awaiting_client" && run.pause?.kind === "encrypt")) {
        return idle;
      }
      return illegal(run, event);
    case "fail":
      return s === "running" ? { state: "error", pause: null } : illegal(run, event);
    case "recover":
      return s === "error" ? idle : illegal(run, event);
    case "break":
      return s === "running" || s === "awaiting_client" ? idle : illegal(run, event);
  }
}
