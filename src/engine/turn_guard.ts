/**
 * Watches over a claimed turn while it runs (DESIGN.md "Scale-out"): renews
 * the claim's lease, and aborts the turn as soon as the run's
 * `supersede_seq` moves, heard through the database's signal (LISTEN/NOTIFY
 * on PostgreSQL) or read by a poll every 250 ms, so a `break` or `inject`
 * sent to any instance stops a call this instance is streaming.
 */
import type { Queryable } from "../store/db.ts";
import { readSupersedeSeq, RENEW_EVERY_MS, renewClaim } from "../store/runs.ts";
import type { SupersedeSignals } from "../store/supersede_signal.ts";

export const SUPERSEDE_POLL_MS = 250;

export interface TurnGuard {
  /** Aborted when the run is superseded. */
  readonly signal: AbortSignal;
  stop(): void;
}

export interface GuardOptions {
  db: Queryable;
  signals: SupersedeSignals;
  runId: string;
  turnId: string;
  /** `supersede_seq` as the claim left it. */
  seq: number;
  now: () => Date;
}

export function guardTurn(o: GuardOptions): TurnGuard {
  const controller = new AbortController();
  const supersede = () => {
    if (!controller.signal.aborted) {
      controller.abort(new DOMException("the run was superseded", "AbortError"));
    }
  };
  const unwatch = o.signals.watch(o.runId, (seq) => {
    if (seq > o.seq) supersede();
  });
  let polling = false;
  const poll = setInterval(async () => {
    if (polling || controller.signal.aborted) return;
    polling = true;
    try {
      const seq = await readSupersedeSeq(o.db, o.runId);
      if (seq === null || seq > o.seq) supersede();
    } catch {
      // A failed read is retried at the next tick; the lease still fences the turn.
    } finally {
      polling = false;
    }
  }, SUPERSEDE_POLL_MS);
  const renew = setInterval(() => {
    renewClaim(o.db, { runId: o.runId, turnId: o.turnId, now: o.now() }).catch(() => {});
  }, RENEW_EVERY_MS);
  return {
    signal: controller.signal,
    stop() {
      clearInterval(poll);
      clearInterval(renew);
      unwatch();
    },
  };
}
