/**
 * The engine's per-instance machinery beside the handler's `Deps`: the
 * supersede signal listener and this instance's name. `main.ts` opens the
 * listener (LISTEN/NOTIFY on PostgreSQL) and passes it in `Deps`; without one
 * the instance's turn watcher relies on its batched 250 ms poll of
 * `supersede_seq`, which alone keeps cross-instance supersedes within a second.
 */
import type { Deps } from "../deps.ts";
import type { SupersedeSignals } from "../store/supersede_signal.ts";
import { turnWriter } from "../store/turn_writer.ts";
import { storeLane } from "../store/store_lane.ts";
import { type ExecuteClaimer, executeClaimer } from "../store/run_admission.ts";
import { isStorageError } from "../core/errors.ts";
import { NO_TELEMETRY } from "../telemetry/telemetry.ts";
import type { EngineDeps } from "./turn_context.ts";
import { createTurnWatcher } from "./turn_watch.ts";
import { type LostTurns, lostTurns } from "./lost_turns.ts";

export const SILENT_SIGNALS: SupersedeSignals = {
  watch: () => () => {},
  close: () => Promise.resolve(),
};

const cache = new WeakMap<Deps, EngineDeps>();

/**
 * Claims that mind this instance's lost turns. A claim that failed on the
 * store may still have committed: its turn is lost (nothing will run it), so
 * it is ended too once the store takes writes. A claim refused because the
 * session's run is held by a lost turn of this instance ends it now and claims
 * again, rather than waiting for the retry; while the store still refuses,
 * the claim answers the store's error. So does one that read the run as held
 * by a lost turn the retry was ending meanwhile: by its answer, the turn is
 * ended, and the claim again finds the session free.
 */
export function minding(claims: ExecuteClaimer, lost: LostTurns): ExecuteClaimer {
  return {
    async claim(c) {
      let claim;
      try {
        claim = await claims.claim(c);
      } catch (error) {
        if (isStorageError(error)) lost.add({ runId: c.runId, turnId: c.turnId });
        throw error;
      }
      const holder = claim.kind === "in_flight" ? claim.run?.current_turn : null;
      if (holder == null || !lost.seen(holder)) return claim;
      // Still refused: the session waits on the store, not on a turn (storage_error, not 409).
      await lost.flush();
      return await claims.claim(c);
    },
  };
}

export function engineDeps(deps: Deps): EngineDeps {
  let found = cache.get(deps);
  if (found === undefined) {
    const signals = deps.signals ?? SILENT_SIGNALS;
    const lane = storeLane();
    found = {
      ...deps,
      signals,
      instance: deps.instanceId ?? `instance-${crypto.randomUUID()}`,
      telemetry: deps.telemetry ?? NO_TELEMETRY,
      watcher: createTurnWatcher({ db: deps.db, signals, now: deps.now }),
      turns: turnWriter(deps.db, lane),
      claims: executeClaimer(deps.db, lane),
      lost: lostTurns({ db: deps.db, now: deps.now, logger: deps.logger }),
    };
    found.claims = minding(found.claims, found.lost);
    cache.set(deps, found);
  }
  return found;
}
