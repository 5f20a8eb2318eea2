/**
 * Hand-offs of superseded encrypted turns (migration 003): the superseding
 * request opens a row with its public key in the supersede transaction, the
 * superseded turn fills in the sealed hand-off, the superseding request reads
 * and deletes it. Rows hold only public keys and ciphertext.
 */
import type { SealedMessage } from "../platform/handoff_cipher.ts";
import type { Queryable } from "./db.ts";

/** A row older than this was given up on by a request that is long gone. */
export const HANDOFF_ROW_TTL_MS = 60_000;

export interface HandoffSlot {
  runId: string;
  /** The `supersede_seq` the superseding request set. */
  seq: number;
}

export async function openHandoffSlot(
  tx: Queryable,
  slot: HandoffSlot & { recipientKey: string; now: Date },
): Promise<void> {
  await tx.query("DELETE FROM run_handoffs WHERE created_at < $1", [
    new Date(slot.now.getTime() - HANDOFF_ROW_TTL_MS),
  ]);
  await tx.query(
    `INSERT INTO run_handoffs (run_id, seq, recipient_key, created_at) VALUES ($1, $2, $3, $4)`,
    [slot.runId, slot.seq, slot.recipientKey, slot.now],
  );
}

/** The key to seal the hand-off to; null when no request waits for one. */
export async function handoffRecipient(db: Queryable, slot: HandoffSlot): Promise<string | null> {
  const rows = await db.query<{ recipient_key: string }>(
    "SELECT recipient_key FROM run_handoffs WHERE run_id = $1 AND seq = $2 AND sealed IS NULL",
    [slot.runId, slot.seq],
  );
  return rows[0]?.recipient_key ?? null;
}

export async function fillHandoffSlot(
  db: Queryable,
  slot: HandoffSlot,
  message: SealedMessage,
): Promise<void> {
  await db.query(
    `UPDATE run_handoffs SET sender_key = $3, iv = $4, sealed = $5
     WHERE run_id = $1 AND seq = $2 AND sealed IS NULL`,
    [slot.runId, slot.seq, message.senderKey, message.iv, message.sealed],
  );
}

/** The sealed hand-off once the superseded turn filled the slot; null until then. */
export async function readHandoffSlot(
  db: Queryable,
  slot: HandoffSlot,
): Promise<SealedMessage | null> {
  const rows = await db.query<{ sender_key: string; iv: string; sealed: string }>(
    `SELECT sender_key, iv, sealed FROM run_handoffs
     WHERE run_id = $1 AND seq = $2 AND sealed IS NOT NULL`,
    [slot.runId, slot.seq],
  );
  const row = rows[0];
  return row === undefined ? null : { senderKey: row.sender_key, iv: row.iv, sealed: row.sealed };
}

export async function closeHandoffSlot(db: Queryable, slot: HandoffSlot): Promise<void> {
  await db.query("DELETE FROM run_handoffs WHERE run_id = $1 AND seq = $2", [slot.runId, slot.seq]);
}
