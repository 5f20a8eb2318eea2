/**
 * The two pauses only an encrypted session makes (interface.md
 * `awaiting_decrypt`, `awaiting_encrypt`; decisions.md §8). Before a model
 * call the client opens what the call needs — the run's sealed checkpoint and
 * additions, earlier history, session memory — and the plaintext lives only in
 * memory for the `decrypted` request. Router-authored content the service
 * still needs later is sealed first (`awaiting_encrypt`, then the decrypt
 * step); content it does not need rides along in the pause's `to_encrypt`.
 */
import { decryptPause, encryptPause } from "../core/run_state.ts";
import type { Envelope } from "../core/sealed_envelope.ts";
import { awaitingDecryptEnvelope, awaitingEncryptEnvelope } from "../core/turn_envelope.ts";
import { listMemories } from "../store/memories.ts";
import { listHistory } from "../store/messages.ts";
import { getSealedContent } from "../store/sealed_content.ts";
import type { SealScope } from "./seal_scope.ts";
import { runInputRefs } from "./sealed_run.ts";
import type { TurnContext, TurnResult } from "./turn_context.ts";
import { writePause } from "./turn_records.ts";

export type SealedTurn = Pick<TurnContext, "deps" | "session" | "runId" | "turnId"> & {
  seal: SealScope;
};

/** Earlier runs' sealed messages and sealed session memory: what a model call may draw on. */
export async function sealedHistory(t: SealedTurn): Promise<Record<string, Envelope>> {
  const out: Record<string, Envelope> = {};
  for (const m of await listHistory(t.deps.db, t.session.id)) {
    if (m.run_id !== t.runId && typeof m.content.encrypted === "object") {
      out[`message:${m.seq}`] = m.content.encrypted as unknown as Envelope;
    }
  }
  const memory = await listMemories(t.deps.db, {
    userId: t.session.user_id,
    sessionId: t.session.id,
  });
  for (const row of memory) {
    if (typeof row.value.encrypted === "object") {
      out[`memory:${row.id}`] = row.value.encrypted as unknown as Envelope;
    }
  }
  return out;
}

/** Everything the client must open before the next model call of the run. */
async function decryptNeeds(t: SealedTurn): Promise<Record<string, Envelope>> {
  const refs = runInputRefs(t.seal.state);
  // Injected text is a message of this run; the rest are sealed rows.
  const rows: Record<string, unknown> = await getSealedContent(t.deps.db, t.session.id, refs);
  for (const m of await listHistory(t.deps.db, t.session.id)) {
    const ref = `message:${m.seq}`;
    if (refs.includes(ref) && typeof m.content.encrypted === "object") {
      rows[ref] = m.content.encrypted;
    }
  }
  const missing = refs.filter((ref) => rows[ref] === undefined);
  if (missing.length > 0) throw new Error(`sealed run input rows are missing: ${missing.length}`);
  const own = Object.fromEntries(refs.map((ref) => [ref, rows[ref] as unknown as Envelope]));
  return { ...own, ...(await sealedHistory(t)) };
}

/** Pauses with `awaiting_decrypt`; pending router-authored content rides along in `to_encrypt`. */
export async function decryptStep(t: SealedTurn): Promise<TurnResult> {
  const needs = await decryptNeeds(t);
  const toEncrypt = t.seal.toEncrypt;
  const pause = decryptPause(Object.keys(needs), Object.keys(toEncrypt));
  if (!(await writePause(t, pause, { ...t.seal.state }))) return { kind: "superseded" };
  const pending = Object.keys(toEncrypt).length > 0 ? toEncrypt : undefined;
  return { kind: "envelope", envelope: awaitingDecryptEnvelope(needs, t.turnId, pending) };
}

/** Pauses with `awaiting_encrypt`; `sealed` then ends the run or goes on to the decrypt step. */
export async function encryptStep(t: SealedTurn, then: "idle" | "decrypt"): Promise<TurnResult> {
  t.seal.state.then = then;
  const pause = encryptPause(Object.keys(t.seal.toEncrypt));
  if (!(await writePause(t, pause, { ...t.seal.state }))) return { kind: "superseded" };
  return {
    kind: "envelope",
    envelope: awaitingEncryptEnvelope(t.seal.toEncrypt, t.turnId),
  };
}
