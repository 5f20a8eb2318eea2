/**
 * One watcher per instance over every turn it serves (DESIGN.md
 * "Scale-out"): a turn is aborted as soon as its run's `supersede_seq`
 * moves, heard through the database's signal (LISTEN/NOTIFY on PostgreSQL)
 * or read by one batched poll every 250 ms for all of them; the same watcher
 * renews all their leases in one statement. Nothing runs while the instance
 * serves no turn, and a stream costs the database nothing of its own.
 */
import type { Failure } from "../core/errors.ts";
import type { Queryable } from "../store/db.ts";
import { releaseClaims } from "../store/instances.ts";
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
  /** Aborted when the run is superseded or the instance cuts its turns. */
  readonly signal: AbortSignal;
  /** Why the instance cut the turn (`cutAll`); null when it was not. */
  readonly cut: Failure | null;
  stop(): void;
}

export interface TurnWatcher {
  guard(turn: WatchedTurn): TurnGuard;
  /**
   * A request on this instance superseded run `runId` (its seq is now `seq`):
   * this instance's turns of that run stop at once, without waiting for the
   * signal or the poll.
   */
  superseded(runId: string, seq: number): void;
  /** How many turns are watched now. */
  readonly size: number;
  /** Resolves once no turn is watched, or after `ms`. */
  settled(ms: number): Promise<void>;
  /**
   * Cuts every watched turn as a `break` does (shutdown): their claims are
   * released (runs idle, `supersede_seq` moved) and each turn ends as a
   * superseded one, its guard's `cut` saying why.
   */
  cutAll(why: Failure): Promise<void>;
}

interface Entry extends WatchedTurn {
  controller: AbortController;
  unlisten: () => void;
  cut: Failure | null;
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
  const waiting = new Set<() => void>();

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
        await renewClaims(o.db, [...turns.values()], now);
        // Only once renewed: after an outage the leases are renewed at the first tick that reads.
        renewedAt = now.getTime();
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
    settled(ms) {
      if (turns.size === 0) return Promise.resolve();
      return new Promise((resolve) => {
        const done = () => {
          clearTimeout(timeout);
          waiting.delete(done);
          resolve();
        };
        const timeout = setTimeout(done, ms);
        waiting.add(done);
      });
    },
    async cutAll(why) {
      const watched = [...turns.values()];
      if (watched.length === 0) return;
      await releaseClaims(o.db, watched, o.now());
      for (const entry of watched) {
        entry.cut = why;
        supersede(entry);
      }
    },
    superseded(runId, seq) {
      for (const entry of turns.values()) {
        if (entry.runId === runId && seq > entry.seq) supersede(entry);
      }
    },
    guard(turn) {
      const controller = new AbortController();
      const entry: Entry = { ...turn, controller, unlisten: () => {}, cut: null };
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
        get cut() {
          return entry.cut;
        },
        stop() {
          entry.unlisten();
          turns.delete(turn.turnId);
          if (turns.size > 0) return;
          if (timer !== null) clearInterval(timer);
          timer = null;
          for (const done of [...waiting]) done();
        },
      };
    },
  };
}
