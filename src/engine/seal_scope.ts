/**
 * One request's view of an encrypted session (decisions.md §8): what the
 * service authored and must hand back in `to_encrypt`, what the client opened
 * for it (plaintext that lives only in memory for this request), and the
 * run's sealed state. Trace payloads go the same way as message bodies: the
 * row keeps its readable columns (event type, task type, provider, model,
 * matched rule) and an empty payload, the payload travels in `to_encrypt`
 * as `trace:<seq>`, and the envelope replaces it once sealed.
 */
import type { Envelope } from "../core/sealed_envelope.ts";
import type { Queryable } from "../store/db.ts";
import { sealMemoryValue } from "../store/memories.ts";
import { replaceMessageContent } from "../store/messages.ts";
import { putSealedContent } from "../store/sealed_content.ts";
import {
  appendTraceEvents,
  appendTraceEventsSeqs,
  type NewTraceEvent,
  sealTracePayload,
} from "../store/traces.ts";
import type { SealedRunState } from "./sealed_run.ts";

export interface SealScope {
  keyId: string;
  /** Router-authored content by reference, in the order produced. */
  toEncrypt: Record<string, string>;
  /** What the `decrypted` continuation opened: history, session memory, run input. */
  plain: Record<string, string>;
  state: SealedRunState;
  /** The reply of this turn cut by a supersede, for the request that superseded it. */
  partial: { ref: string; text: string } | null;
}

export function sealScope(keyId: string | null, state: SealedRunState): SealScope | null {
  return keyId === null ? null : { keyId, toEncrypt: {}, plain: {}, state, partial: null };
}

/** Appends trace events; in an encrypted session their payloads go to `to_encrypt` instead. */
export async function recordTrace(
  db: Queryable,
  seal: SealScope | null,
  events: readonly NewTraceEvent[],
): Promise<void> {
  if (seal === null) return await appendTraceEvents(db, events);
  const seqs = await appendTraceEventsSeqs(db, events.map((e) => ({ ...e, payload: {} })));
  events.forEach((e, i) => {
    seal.toEncrypt[`trace:${seqs[i]}`] = JSON.stringify(e.payload.plaintext ?? {});
  });
}

/**
 * Stores envelopes the client sealed: message bodies, trace payloads and
 * session memory in place, everything else (run input, tool results, plans)
 * as sealed rows by reference.
 */
export async function storeSealed(
  db: Queryable,
  sessionId: string,
  sealed: Readonly<Record<string, Envelope>>,
  now: Date,
): Promise<void> {
  const rows: Record<string, Record<string, unknown>> = {};
  for (const [ref, sealedEnvelope] of Object.entries(sealed)) {
    const envelope = { ...sealedEnvelope } as Record<string, unknown>;
    const [kind, id] = [ref.slice(0, ref.indexOf(":")), ref.slice(ref.indexOf(":") + 1)];
    if (kind === "message" && /^[0-9]+$/.test(id)) {
      await replaceMessageContent(db, sessionId, Number(id), { encrypted: envelope });
    } else if (kind === "trace" && /^[0-9]+$/.test(id)) {
      await sealTracePayload(db, sessionId, Number(id), envelope);
    } else if (kind === "memory") {
      await sealMemoryValue(db, sessionId, id, envelope);
    } else {
      rows[ref] = envelope;
    }
  }
  await putSealedContent(db, sessionId, rows, now);
}
