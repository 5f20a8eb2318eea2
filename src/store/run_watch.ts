/**
 * The batched reads and writes of an instance's turn watcher
 * (engine/turn_watch.ts): one statement for every turn the instance serves.
 */
import type { Queryable } from "./db.ts";
import { heldRunsInOrder, leaseUntil } from "./runs.ts";

/** `supersede_seq` of each run; a run that is gone is absent from the answer. */
export async function readSupersedeSeqs(
  db: Queryable,
  runIds: readonly string[],
): Promise<Map<string, number>> {
  const rows = await db.query<{ id: string; supersede_seq: number }>(
    "SELECT id, supersede_seq FROM runs WHERE id = ANY($1::uuid[])",
    [runIds],
  );
  return new Map(rows.map((r) => [r.id, r.supersede_seq]));
}

/** Extends the lease of every claim still held by the given turn; returns the runs renewed. */
export async function renewClaims(
  db: Queryable,
  held: readonly { runId: string; turnId: string }[],
  now: Date,
  leaseMs?: number,
): Promise<string[]> {
  // Locked in the order a claim batch locks them (runs.ts `heldRunsInOrder`).
  const rows = await db.query<{ id: string }>(
    `WITH held AS (${heldRunsInOrder("'running'")})
     UPDATE runs SET claim_expires = $3 FROM held WHERE runs.id = held.id
     RETURNING runs.id`,
    [held.map((h) => h.runId), held.map((h) => h.turnId), leaseUntil(now, leaseMs)],
  );
  return rows.map((r) => r.id);
}
