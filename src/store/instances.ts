/**
 * Instance liveness (migrations 005 and 016): a served instance beats its row
 * about once a second, so a claim it holds lapses within seconds of a crash
 * instead of a whole lease; on PostgreSQL its row also names the advisory lock
 * it holds (liveness_lock.ts), so a crash that closes its connection is seen
 * at once. An instance without a row (a test harness serving a handler
 * directly) is judged by its claims' leases alone.
 */
import type { Queryable } from "./db.ts";

export const HEARTBEAT_EVERY_MS = 1_000;

/**
 * Joins the instances at start-up and cuts the runs of those that are gone
 * (their runs go idle, traced as lost; migration 005). `sole`: the embedded
 * store has exactly one instance, so every other holder is gone. Returns how
 * many runs were cut.
 */
export async function joinInstances(
  db: Queryable,
  c: { instance: string; now: Date; sole: boolean; livenessLock?: string | null },
): Promise<number> {
  // The row names the lock before anyone can see the instance hold a claim.
  if (c.livenessLock != null) await beat(db, c.instance, c.now, c.livenessLock);
  const rows = await db.query<{ cut: number }>(
    "SELECT switchyard_reap_instances($1, $2, $3) AS cut",
    [c.instance, c.now, c.sole],
  );
  return rows[0].cut;
}

/**
 * The heartbeat; `livenessLock` is the key of the advisory lock the instance
 * holds (null: none, the heartbeat alone judges it). A row another instance
 * reaped while this one lived comes back with it.
 */
export async function beat(
  db: Queryable,
  instance: string,
  now: Date,
  livenessLock: string | null = null,
): Promise<void> {
  await db.query(
    `INSERT INTO instances (id, heartbeat_at, liveness_lock) VALUES ($1, $2, $3::bigint)
     ON CONFLICT (id) DO UPDATE
     SET heartbeat_at = excluded.heartbeat_at, liveness_lock = excluded.liveness_lock`,
    [instance, now, livenessLock],
  );
}

/** A clean exit: the instance holds nothing any more. */
export async function leave(db: Queryable, instance: string): Promise<void> {
  await db.query("DELETE FROM instances WHERE id = $1", [instance]);
}

/**
 * Releases the given turns' claims as a `break` does: the run goes idle and
 * its `supersede_seq` moves, so each turn ends as a superseded one (what it
 * produced persisted marked interrupted). Returns the runs released.
 */
export async function releaseClaims(
  db: Queryable,
  held: readonly { runId: string; turnId: string }[],
  now: Date,
): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `UPDATE runs SET state = 'idle', pause = NULL, claimed_by = NULL, claim_expires = NULL,
                     supersede_seq = supersede_seq + 1, updated_at = $3
     FROM unnest($1::uuid[], $2::uuid[]) AS held (run_id, turn_id)
     WHERE runs.id = held.run_id AND runs.current_turn = held.turn_id AND runs.state = 'running'
     RETURNING runs.id`,
    [held.map((h) => h.runId), held.map((h) => h.turnId), now],
  );
  return rows.map((r) => r.id);
}
