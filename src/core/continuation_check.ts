/**
 * Checking a continuation's data against the pause it answers (decisions.md
 * §2, §7, §8). Every failure is 422 `invalid_request` returned as a value: the
 * run's checkpoint is untouched and the client can answer again. Admission
 * (run_admission.ts) has already matched the kind to the pause.
 */
import {
  type ApprovalOutcome,
  type ApprovalRef,
  combinedOutcome,
  type Decision,
} from "./approvals.ts";
import type { Continuation, EnvelopeMap } from "./continuation.ts";
import { ANSWERS } from "./continuation.ts";
import { fail, ok, type Outcome } from "./errors.ts";
import type { Pause } from "./run_state.ts";
import { checkSealed, requiredSealed } from "./continuation_sealed.ts";
import { type Envelope, envelopeProblem } from "./sealed_envelope.ts";
import { type ResultForModel, resultsForModel } from "./tool_mediation.ts";

/** The text of a result the client rejected without saying more. */
export const REJECTED_BY_USER = "rejected by the user";

export interface CheckedToolResult {
  call_id: string;
  name: string;
  requires_approval: "allow" | "ask";
  content: string;
  is_error: boolean;
  decision: Decision | null;
}

export type CheckedContinuation =
  | {
    type: "tool_results";
    /** The client's results, in the order the calls were requested. */
    results: CheckedToolResult[];
    /** Every result of the reply (service's and client's), in the model's call order. */
    for_model: ResultForModel[];
    /** `decision`s of ask calls, to record as session approvals. */
    approvals: { call_id: string; decision: Decision }[];
    sealed: EnvelopeMap;
  }
  | {
    type: "approval_decisions";
    decisions: { approval: ApprovalRef; decision: Decision; reason: string | null }[];
    outcome: ApprovalOutcome;
    sealed: EnvelopeMap;
  }
  | { type: "decrypted"; plaintext: Record<string, string>; sealed: EnvelopeMap }
  | { type: "sealed"; sealed: EnvelopeMap }
  | { type: "inject"; text: string; ciphertexts: Envelope[] }
  | { type: "break" };

export interface IdMismatch {
  missing: string[];
  extra: string[];
  repeated: string[];
}

/** One to one: each expected id exactly once, nothing else. */
export function matchIds(expected: readonly string[], given: readonly string[]): IdMismatch {
  const seen = new Set<string>();
  const repeated: string[] = [];
  for (const id of given) {
    if (seen.has(id) && !repeated.includes(id)) repeated.push(id);
    seen.add(id);
  }
  return {
    missing: expected.filter((id) => !seen.has(id)),
    extra: [...seen].filter((id) => !expected.includes(id)),
    repeated,
  };
}

function idFailure(what: string, field: string, path: string, m: IdMismatch): Outcome<never> {
  const parts: string[] = [];
  const quote = (ids: string[]) => ids.map((id) => `'${id}'`).join(", ");
  if (m.missing.length > 0) parts.push(`missing ${field} ${quote(m.missing)}`);
  if (m.extra.length > 0) parts.push(`unexpected ${field} ${quote(m.extra)}`);
  if (m.repeated.length > 0) parts.push(`repeated ${field} ${quote(m.repeated)}`);
  return fail("invalid_request", `invalid ${what}: ${parts.join("; ")}`, { path, ...m });
}

const hasMismatch = (m: IdMismatch) => m.missing.length + m.extra.length + m.repeated.length > 0;

function checkToolResults(
  pause: Extract<Pause, { kind: "tool" }>,
  data: Extract<Continuation, { type: "tool_results" }>["data"],
  keyId: string | null,
): Outcome<CheckedContinuation> {
  const m = matchIds(pause.calls.map((c) => c.call_id), data.results.map((r) => r.call_id));
  if (hasMismatch(m)) return idFailure("tool results", "call_id", "data.results", m);
  const sealed = checkSealed(data.encrypted, requiredSealed(pause), keyId);
  if (!sealed.ok) return sealed;
  const results = pause.calls.map((call): CheckedToolResult => {
    const r = data.results.find((x) => x.call_id === call.call_id)!;
    const rejected = r.decision === "rejected";
    return {
      call_id: call.call_id,
      name: call.name,
      requires_approval: call.requires_approval,
      content: r.content ?? (rejected ? REJECTED_BY_USER : ""),
      is_error: r.is_error ?? rejected,
      decision: r.decision ?? null,
    };
  });
  return ok({
    type: "tool_results",
    results,
    for_model: resultsForModel(pause.order, pause.service_results, results),
    approvals: results.filter((r) => r.requires_approval === "ask" && r.decision !== null)
      .map((r) => ({ call_id: r.call_id, decision: r.decision! })),
    sealed: sealed.value,
  });
}

function checkDecisions(
  pause: Extract<Pause, { kind: "approval" }>,
  data: Extract<Continuation, { type: "approval_decisions" }>["data"],
  keyId: string | null,
): Outcome<CheckedContinuation> {
  const ids = pause.approvals.map((a) => a.approval_id);
  const m = matchIds(ids, data.decisions.map((d) => d.approval_id));
  if (hasMismatch(m)) return idFailure("approval decisions", "approval_id", "data.decisions", m);
  const sealed = checkSealed(data.encrypted, requiredSealed(pause), keyId);
  if (!sealed.ok) return sealed;
  const decisions = pause.approvals.map((approval) => {
    const d = data.decisions.find((x) => x.approval_id === approval.approval_id)!;
    return { approval, decision: d.decision, reason: d.reason ?? null };
  });
  const outcome = combinedOutcome(
    decisions.map((d) => ({ kind: d.approval.kind, decision: d.decision })),
  );
  return ok({ type: "approval_decisions", decisions, outcome, sealed: sealed.value });
}

function checkDecrypted(
  pause: Extract<Pause, { kind: "decrypt" }>,
  data: Extract<Continuation, { type: "decrypted" }>["data"],
  keyId: string | null,
): Outcome<CheckedContinuation> {
  const missing = pause.to_decrypt.filter((ref) => !Object.hasOwn(data.plaintext, ref));
  if (missing.length > 0) {
    return fail(
      "invalid_request",
      `invalid decrypted content: missing ${missing.map((r) => `'${r}'`).join(", ")}`,
      { path: "data.plaintext", missing },
    );
  }
  const sealed = checkSealed(data.encrypted, requiredSealed(pause), keyId);
  if (!sealed.ok) return sealed;
  // Only what was asked for reaches a prompt; anything else is dropped.
  const plaintext = Object.fromEntries(pause.to_decrypt.map((ref) => [ref, data.plaintext[ref]]));
  return ok({ type: "decrypted", plaintext, sealed: sealed.value });
}

function checkInject(
  data: Extract<Continuation, { type: "inject" }>["data"],
  keyId: string | null,
): Outcome<CheckedContinuation> {
  if (data.messages.length === 0) {
    return fail("invalid_request", "invalid inject: messages must not be empty", {
      path: "data.messages",
    });
  }
  const ciphertexts: Envelope[] = [];
  for (const [i, message] of data.messages.entries()) {
    if (typeof message.text !== "string") {
      return fail("invalid_request", `invalid inject: data.messages[${i}].text is required`, {
        path: `data.messages[${i}].text`,
      });
    }
    if (keyId !== null && message.ciphertext !== undefined) {
      const problem = envelopeProblem(message.ciphertext, keyId);
      if (problem !== null) {
        return fail(
          "invalid_request",
          `invalid inject: data.messages[${i}].ciphertext: ${problem}`,
          {
            path: `data.messages[${i}].ciphertext`,
          },
        );
      }
      ciphertexts.push(message.ciphertext);
    }
  }
  const text = data.messages.map((m) => m.text).join("\n\n");
  return ok({ type: "inject", text, ciphertexts });
}

/**
 * Checks `continuation` against the run's pause (null while a turn is
 * running) for a session sealed with `keyId` (null: plaintext session).
 */
export function checkContinuation(
  continuation: Continuation,
  pause: Pause | null,
  keyId: string | null,
): Outcome<CheckedContinuation> {
  const c = continuation;
  if (c.type === "break") return ok({ type: "break" });
  if (c.type === "inject") return checkInject(c.data, keyId);
  if (pause === null || ANSWERS[pause.kind] !== c.type) {
    return fail("continuation_mismatch", `continuation mismatch: '${c.type}' answers no pause`, {
      type: c.type,
    });
  }
  if (c.type === "tool_results" && pause.kind === "tool") {
    return checkToolResults(pause, c.data, keyId);
  }
  if (c.type === "approval_decisions" && pause.kind === "approval") {
    return checkDecisions(pause, c.data, keyId);
  }
  if (c.type === "decrypted" && pause.kind === "decrypt") {
    return checkDecrypted(pause, c.data, keyId);
  }
  if (c.type === "sealed") {
    const sealed = checkSealed(c.data.encrypted, requiredSealed(pause), keyId);
    return sealed.ok ? ok({ type: "sealed", sealed: sealed.value }) : sealed;
  }
  throw new Error(`unreachable continuation '${c.type}'`);
}
