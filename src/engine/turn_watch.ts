/**
 * One watcher per instance over every turn it serves (DESIGN.md
 * "Scale-out"): a turn is aborted as soon as its run's `supersede_seq`
 * moves, heard through the database's signal (LISTEN/NOTIFY on PostgreSQL)
 * or read by one batched poll every 250 ms for all of them; the same watcher
 * renews all their leases in one statement. Nothing runs while the instance
 * serves no turn, and a stream costs the database nothing of its own.
 */
import type { Queryable } from "../store/db.ts";
import { RENEW_EVERY_MS } from "../store/runs.ts";
import { readSupersedeSeqs, renewClaims } from "../store/run_watch.ts";
import type { SupersedeSignals } from "../store/supersede_signal.ts";

export const SUPERSEDE_POLL_MS = 250;

export interface WatchedTurn {
  runId: string;
  turnId: string;
  /** `supersede_seq` as the claim left it. */
  seq: number;
}

export interface TurnGuard {
  /** Aborted when the run is superseded. */
  readonly signal: AbortSignal;
  stop(): void;
}

export interface TurnWatcher {
  guard(turn: WatchedTurn): TurnGuard;
  /** How many turns are watched now. */
  readonly size: number;
}

interface Entry extends WatchedTurn {
  controller: AbortController;
  unlisten: () => void;
}

function supersede(entry: Entry): void {
  if (!entry.controller.signal.aborted) {
    entry.controller.abort(new DOMException("the run was superseded", "AbortError"));
  }
}

export function createTurnWatcher(
  o: { db: Queryable; signals: SupersedeSignals; now: () => Date },
): TurnWatcher {
  // By turn: a `break` on this instance watches its own turn of the same run.
  const turns = new Map<string, Entry>();
  let timer: ReturnType<typeof setInterval> | null = null;
  let polling = false;
  let renewedAt = 0;

  async function tick(): Promise<void> {
    if (polling || turns.size === 0) return;
    polling = true;
    try {
      const watched = [...turns.values()];
      const seqs = await readSupersedeSeqs(o.db, watched.map((t) => t.runId));
      for (const entry of watched) {
        const seq = seqs.get(entry.runId);
        if (seq === undefined || seq > entry.seq) supersede(entry);
      }
      const now = o.now();
      if (now.getTime() - renewedAt >= RENEW_EVERY_MS) {
        renewedAt = now.getTime();
        await renewClaims(o.db, [...turns.values()], now);
      }
    } catch {
      // A failed read is retried at the next tick; the lease still fences the turns.
    } finally {
      polling = false;
    }
  }

  return {
    get size() {
      return turns.size;
    },
    guard(turn) {
      const controller = new AbortController();
      const entry: Entry = { ...turn, controller, unlisten: () => {} };
      entry.unlisten = o.signals.watch(turn.runId, (seq) => {
        if (seq > turn.seq) supersede(entry);
      });
      turns.set(turn.turnId, entry);
      if (timer === null) {
        renewedAt = o.now().getTime();
        timer = setInterval(tick, SUPERSEDE_POLL_MS);
      }
      return {
        signal: controller.signal,
        stop() {
          entry.unlisten();
          turns.delete(turn.turnId);
          if (turns.size === 0 && timer !== null) {
            clearInterval(timer);
            timer = null;
          }
        },
      };
    },
  };
}
