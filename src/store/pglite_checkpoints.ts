/**
 * PostgreSQL in single-user mode, as PGlite runs it, never makes a checkpoint
 * by itself: there is no checkpointer, and a backend asks for one on a full
 * WAL only under a postmaster. Only `CHECKPOINT` or a clean shutdown make one.
 * Left alone, the WAL of a running service grew by 6–12 KB a turn with no
 * bound (on disk, or in memory with `memory://`), and a crash replayed all of
 * it at the next start. So the store checks what was written since the last
 * checkpoint and makes one past a threshold; `max_wal_size` (pglite_driver.ts)
 * then bounds what it keeps for reuse.
 */
import type { Queryable } from "./db.ts";

export interface CheckpointPolicy {
  /** How often the WAL written since the last checkpoint is looked at. */
  everyMs: number;
  /** Past this many bytes of WAL since the last checkpoint, make one. */
  afterBytes: number;
}

/** About 2,700 turns apart; a checkpoint then takes 10–20 ms (8 MB of shared buffers at most). */
export const CHECKPOINTS: CheckpointPolicy = { everyMs: 10_000, afterBytes: 32 * 1024 * 1024 };

/** Whether WAL past `afterBytes` was written since the last checkpoint's redo point. */
export async function checkpointDue(db: Queryable, afterBytes: number): Promise<boolean> {
  const [row] = await db.query<{ due: boolean }>(
    `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), redo_lsn) >= $1 AS due
     FROM pg_control_checkpoint()`,
    [afterBytes],
  );
  return row.due;
}

/** Checks every `policy.everyMs` until stopped; never holds the process open. */
export function keepCheckpointing(db: Queryable, policy: CheckpointPolicy): { stop(): void } {
  let busy = false;
  const timer = setInterval(async () => {
    if (busy) return;
    busy = true;
    try {
      if (await checkpointDue(db, policy.afterBytes)) await db.exec("CHECKPOINT");
    } catch {
      // The WAL stays as it was and the next tick tries again; a store that
      // fails here fails the requests too, and they are logged.
    } finally {
      busy = false;
    }
  }, policy.everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
