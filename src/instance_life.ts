/**
 * An instance's life beside its requests: at start it joins the instances
 * (cutting the runs of those that are gone) and beats its row every second,
 * so its claims outlive it by seconds at most (store/instances.ts); on
 * PostgreSQL it holds its liveness lock from before it joins until it has
 * left, so a crash frees its claims at once (store/liveness_lock.ts); on a
 * shutdown it drains: no new turns, running ones get `shutdown_grace_ms` to
 * finish, what is left is cut like a `break`, its row is removed, and its
 * lock released.
 */
import { failure } from "./core/errors.ts";
import type { TurnWatcher } from "./engine/turn_watch.ts";
import type { Logger } from "./log.ts";
import type { Queryable } from "./store/db.ts";
import { beat, HEARTBEAT_EVERY_MS, joinInstances, leave } from "./store/instances.ts";
import type { LivenessLock } from "./store/liveness_lock.ts";
import { isStorageFault } from "./store/storage_fault.ts";

/** How long cut turns get to write what they produced and end their streams. */
const CUT_SETTLE_MS = 5_000;

export interface InstanceLife {
  readonly draining: boolean;
  /** Stops new turns, drains the running ones within `graceMs`, leaves the instances. */
  drain(graceMs: number): Promise<void>;
}

export async function startInstance(o: {
  db: Queryable;
  instance: string;
  /** The embedded store: this is the only instance, so every other claim is stale. */
  sole: boolean;
  /** On PostgreSQL: the lock this instance holds for its life, already taken; closed by `drain`. */
  livenessLock?: LivenessLock;
  watcher: TurnWatcher;
  now: () => Date;
  logger: Logger;
}): Promise<InstanceLife> {
  const key = o.livenessLock?.key ?? null;
  const cut = await joinInstances(o.db, {
    instance: o.instance,
    now: o.now(),
    sole: o.sole,
    livenessLock: key,
  });
  if (cut > 0) o.logger.info("cut the turns of stopped instances", { runs: cut });
  const timer = setInterval(() => {
    beat(o.db, o.instance, o.now(), key).catch((error) =>
      o.logger.warn("heartbeat failed", { error: (error as Error)?.name })
    );
  }, HEARTBEAT_EVERY_MS);
  let draining = false;
  return {
    get draining() {
      return draining;
    },
    async drain(graceMs) {
      draining = true;
      await o.watcher.settled(graceMs);
      if (o.watcher.size > 0) {
        o.logger.info("cutting turns at shutdown", { turns: o.watcher.size });
        await o.watcher.cutAll(
          failure("shutting_down", "the instance shut down before the turn finished"),
        );
        await o.watcher.settled(CUT_SETTLE_MS);
      }
      clearInterval(timer);
      try {
        await leave(o.db, o.instance);
      } finally {
        await o.livenessLock?.close();
      }
    },
  };
}

/**
 * What an instance does with an error nothing caught. A driver socket can
 * report a lost connection after its owner stopped listening (seen under Bun
 * with postgres.js while the server was down): the request it served already
 * failed with storage_error, so the instance goes on. Anything else is a bug:
 * the instance stops, and its heartbeat lapsing hands its turns on.
 */
export function uncaughtHandler(
  logger: Logger,
  exit: (code: number) => void,
): (error: unknown) => void {
  return (error) => {
    if (isStorageFault(error)) {
      logger.warn("late connection error", { code: (error as { code: string }).code });
      return;
    }
    logger.error("uncaught error", { error: error instanceof Error ? error.name : typeof error });
    exit(1);
  };
}
