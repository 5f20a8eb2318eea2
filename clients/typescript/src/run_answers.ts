/**
 * The client's answer to each pause of a run (interface.md "Turn outcomes",
 * decisions.md §7–8): tool results, approval decisions, opened history, or
 * sealed content. In an encrypted session every answer also returns, sealed,
 * what the paused response listed in `to_encrypt`, and a tool answer seals
 * each result under `tool_call:<call_id>:result`.
 */
import { SwitchyardError } from "./errors.ts";
import { openAll, sealAll, type SessionKey } from "./session_key.ts";
import type {
  ContinueRequest,
  EnvelopeMap,
  PendingApproval,
  PlaintextMap,
  ToolRequest,
  ToolResult,
  TurnResponse,
} from "./types.ts";

/** What a tool call produced; a plain string is a successful result. */
export type ToolOutcome = string | { content: string; is_error?: boolean };

/** A question for the user: an `ask` tool call, or an approval the run paused for. */
export type ApprovalRequest =
  | { kind: "tool_call"; call: ToolRequest }
  | { kind: PendingApproval["kind"]; approval: PendingApproval };

/** true approves; false, or `{ approved: false, reason }`, rejects. */
export type ApprovalAnswer = boolean | { approved: boolean; reason?: string };

export interface RunCallbacks {
  /** Runs a tool call on the user's machine; a thrown error becomes an error result. */
  onToolCall?: (call: ToolRequest) => ToolOutcome | Promise<ToolOutcome>;
  /** Decides an `ask` call or a pending approval; absent, everything is rejected. */
  onApproval?: (request: ApprovalRequest) => ApprovalAnswer | Promise<ApprovalAnswer>;
}

const approved = (a: ApprovalAnswer) => (typeof a === "boolean" ? a : a.approved);

async function runTool(call: ToolRequest, callbacks: RunCallbacks): Promise<ToolResult> {
  const ask = call.requires_approval === "ask";
  if (ask && !approved(await callbacks.onApproval?.({ kind: "tool_call", call }) ?? false)) {
    return {
      call_id: call.call_id,
      content: "the user declined this call",
      is_error: true,
      decision: "rejected",
    };
  }
  let outcome: ToolOutcome;
  if (callbacks.onToolCall === undefined) {
    outcome = { content: `tool '${call.name}' is not available on this client`, is_error: true };
  } else {
    try {
      outcome = await callbacks.onToolCall(call);
    } catch (error) {
      outcome = { content: error instanceof Error ? error.message : String(error), is_error: true };
    }
  }
  const { content, is_error = false } = typeof outcome === "string"
    ? { content: outcome }
    : outcome;
  return {
    call_id: call.call_id,
    content,
    is_error,
    ...(ask ? { decision: "approved" as const } : {}),
  };
}

function needKey(key: SessionKey | undefined): SessionKey {
  if (key === undefined) {
    throw new SwitchyardError("missing_key", "this session is encrypted: the run needs its key");
  }
  return key;
}

/** The sealed form of what the service handed out to seal, plus `extra`; none for plaintext. */
async function sealed(
  key: SessionKey | undefined,
  toEncrypt: PlaintextMap | undefined,
  extra: PlaintextMap = {},
): Promise<EnvelopeMap | undefined> {
  const all = { ...toEncrypt, ...extra };
  if (key === undefined) {
    if (toEncrypt !== undefined && Object.keys(toEncrypt).length > 0) needKey(key);
    return undefined;
  }
  return await sealAll(key, all);
}

/** The continuation answering `response`, which must be a pause (non-empty `allowed_continuations`). */
export async function answerFor(
  response: TurnResponse,
  key: SessionKey | undefined,
  callbacks: RunCallbacks,
): Promise<ContinueRequest> {
  switch (response.status) {
    case "awaiting_tool": {
      const results: ToolResult[] = [];
      for (const call of response.data.tool_requests) results.push(await runTool(call, callbacks));
      const resultRefs = Object.fromEntries(
        results.map((r) => [`tool_call:${r.call_id}:result`, r.content ?? ""]),
      );
      const encrypted = await sealed(key, response.data.to_encrypt, key ? resultRefs : {});
      return { type: "tool_results", data: { results, ...(encrypted ? { encrypted } : {}) } };
    }
    case "awaiting_approval": {
      const approval = response.data.approval;
      const answer = await callbacks.onApproval?.({ kind: approval.kind, approval }) ?? false;
      const reason = typeof answer === "object" ? answer.reason : undefined;
      const encrypted = await sealed(key, response.data.to_encrypt);
      return {
        type: "approval_decisions",
        data: {
          decisions: [{
            approval_id: approval.approval_id,
            decision: approved(answer) ? "approved" : "rejected",
            ...(reason !== undefined ? { reason } : {}),
          }],
          ...(encrypted ? { encrypted } : {}),
        },
      };
    }
    case "awaiting_decrypt": {
      const plaintext = await openAll(needKey(key), response.data.to_decrypt);
      const encrypted = await sealed(key, response.data.to_encrypt);
      return { type: "decrypted", data: { plaintext, ...(encrypted ? { encrypted } : {}) } };
    }
    case "completed":
    case "awaiting_encrypt":
      return {
        type: "sealed",
        data: { encrypted: await sealAll(needKey(key), response.data.to_encrypt) },
      };
    default:
      throw new SwitchyardError(
        "invalid_response",
        `a run cannot answer status '${response.status}'`,
      );
  }
}
