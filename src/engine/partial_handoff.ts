/**
 * In an encrypted session a superseded turn cannot store its partial reply
 * (nothing readable is written, decisions.md §8). It hands the partial, the
 * router-authored content it had not handed out yet (trace payloads), and the
 * run input it held in memory to the `break` or `inject` that cut it, which
 * seals them through `to_encrypt`. That request may be served by another
 * instance, so the hand-off goes through the database, sealed to a key pair
 * the request made for it and keeps only in memory (store/run_handoffs.ts).
 */
import { openWith, type RecipientKeys, sealTo } from "../platform/handoff_cipher.ts";
import type { Queryable } from "../store/db.ts";
import {
  closeHandoffSlot,
  fillHandoffSlot,
  handoffRecipient,
  type HandoffSlot,
  readHandoffSlot,
} from "../store/run_handoffs.ts";
import type { RunInput } from "./run_input.ts";

export interface Handoff {
  /** The interrupted reply's message reference and text; null when nothing was generated. */
  partial: { ref: string; text: string } | null;
  /** Router-authored content of the cut turn still to seal, by reference. */
  toEncrypt: Record<string, string>;
  input: RunInput;
  /** What the client had opened for the cut turn. */
  plain: Record<string, string>;
}

/** How often the waiting request looks for the hand-off. */
const POLL_MS = 20;

/** Binds a sealed hand-off to its slot: one made for another run or supersede does not open. */
const contextOf = (slot: HandoffSlot) => `${slot.runId}:${slot.seq}`;

/**
 * The cut turn's side: seals the hand-off to the request waiting in `slot`, if
 * one is; null tells it there is nothing to wait for.
 */
export async function sendHandoff(db: Queryable, slot: HandoffSlot, handoff: Handoff | null) {
  const recipient = await handoffRecipient(db, slot);
  if (recipient === null) return;
  const message = await sealTo(recipient, contextOf(slot), JSON.stringify(handoff));
  await fillHandoffSlot(db, slot, message);
}

/**
 * The superseding request's side: the hand-off once the cut turn sent it;
 * null when it sent none, or after `timeoutMs` (a turn that crashed). The
 * slot is deleted either way.
 */
export async function receiveHandoff(
  db: Queryable,
  keys: RecipientKeys,
  slot: HandoffSlot,
  timeoutMs: number,
): Promise<Handoff | null> {
  const deadline = performance.now() + timeoutMs;
  try {
    for (;;) {
      const message = await readHandoffSlot(db, slot);
      if (message !== null) {
        const text = await openWith(keys, contextOf(slot), message);
        return text === null ? null : JSON.parse(text) as Handoff | null;
      }
      if (performance.now() >= deadline) return null;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } finally {
    await closeHandoffSlot(db, slot);
  }
}
