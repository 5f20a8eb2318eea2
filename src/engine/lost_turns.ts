/**
 * Turns this instance stopped running whose end the store refused to write
 * (a full disk, a database restarting): their runs would stay `running`, so
 * their sessions would refuse every turn with `run_in_flight`, until their
 * leases ran out, though this instance is alive and beating. The instance
 * keeps trying to end them, all in one fenced statement, with a short backoff,
 * so a session takes a turn again as soon as the store takes writes. This is
 * only the fast way: the lease (and the heartbeat, should the instance stop)
 * still frees them without it.
 */
import type { Logger } from "../log.ts";
import type { Queryable } from "../store/db.ts";
import { endLostTurns } from "../store/runs.ts";

export interface LostTurn {
  runId: string;
  turnId: string;
}

export interface LostTurns {
  /** The turn is over here and its run may still be held by it: end it once the store takes writes. */
  add(turn: LostTurn): void;
  /** Whether `turnId` is a turn of this instance waiting to be ended. */
  has(turnId: string): boolean;
  /**
   * Whether `turnId` is a turn of this instance waiting to be ended, or one of
   * the last it ended: a claim that read the session's run as still held by
   * it, as it was being ended, may claim again.
   */
  seen(turnId: string): boolean;
  /** Tries once now to end every waiting turn; throws the store's error when it refuses. */
  flush(): Promise<void>;
  readonly size: number;
}

/**
 * The first retry comes this soon; each failure doubles the wait, up to the
 * cap: the driver's own longest reconnect wait, so a run is ended within about
 * that of the store's return even when no request of its session asks first
 * (one that does ends it at once, engine_deps.ts).
 */
export const LOST_RETRY_FIRST_MS = 25;
export const LOST_RETRY_MAX_MS = 100;
/** How many ended turns `seen` remembers: more than the sessions one store outage cuts. */
const ENDED_KEPT = 1024;

export function lostTurns(
  o: { db: Queryable; now: () => Date; logger: Logger },
): LostTurns {
  const waiting = new Map<string, LostTurn>();
  /** The turns ended here lately, oldest first. */
  const endedLately = new Set<string>();
  let looping = false;
  let attempt: Promise<unknown> | null = null;

  /** One attempt at ending every waiting turn: null once the store took it, else its error. */
  const tryOnce = (): Promise<unknown> => {
    attempt ??= (async () => {
      const batch = [...waiting.values()];
      try {
        const ended = await endLostTurns(o.db, batch, o.now());
        // A turn whose run moved on (ended after all, or taken over) needs nothing more either.
        for (const turn of batch) {
          waiting.delete(turn.turnId);
          endedLately.add(turn.turnId);
        }
        for (const oldest of endedLately) {
          if (endedLately.size <= ENDED_KEPT) break;
          endedLately.delete(oldest);
        }
        if (ended.length > 0) {
          o.logger.info("ended turns the store had refused", {
            runs: ended.length,
          });
        }
        return null;
      } catch (error) {
        return error;
      } finally {
        attempt = null;
      }
    })();
    return attempt;
  };

  const loop = async () => {
    looping = true;
    try {
      for (let wait = LOST_RETRY_FIRST_MS; waiting.size > 0;) {
        await new Promise((resolve) => setTimeout(resolve, wait));
        const refused = await tryOnce();
        wait = refused === null ? LOST_RETRY_FIRST_MS : Math.min(wait * 2, LOST_RETRY_MAX_MS);
      }
    } finally {
      looping = false;
    }
  };

  return {
    add(turn) {
      waiting.set(turn.turnId, turn);
      if (!looping) void loop();
    },
    has: (turnId) => waiting.has(turnId),
    seen: (turnId) => waiting.has(turnId) || endedLately.has(turnId),
    async flush() {
      // An attempt under way may have taken its batch before the turn asked about was added.
      while (attempt !== null) await attempt;
      if (waiting.size === 0) return;
      const refused = await tryOnce();
      if (refused !== null) throw refused;
    },
    get size() {
      return waiting.size;
    },
  };
}
