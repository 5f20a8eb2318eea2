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
import { executeClaimer } from "../store/run_admission.ts";
import { NO_TELEMETRY } from "../telemetry/telemetry.ts";
import type { EngineDeps } from "./turn_context.ts";
import { createTurnWatcher } from "./turn_watch.ts";

export const SILENT_SIGNALS: SupersedeSignals = {
  watch: () => () => {},
  close: () => Promise.resolve(),
};

const cache = new WeakMap<Deps, EngineDeps>();

export function engineDeps(deps: Deps): EngineDeps {
  let found = cache.get(deps);
  if (found === undefined) {
    const signals = deps.signals ?? SILENT_SIGNALS;
    found = {
      ...deps,
      signals,
      instance: deps.instanceId ?? `instance-${crypto.randomUUID()}`,
      telemetry: deps.telemetry ?? NO_TELEMETRY,
      watcher: createTurnWatcher({ db: deps.db, signals, now: deps.now }),
      turns: turnWriter(deps.db),
      claims: executeClaimer(deps.db),
    };
    cache.set(deps, found);
  }
  return found;
}
