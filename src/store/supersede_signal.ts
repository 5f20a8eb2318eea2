/**
 * Supersede signals across instances (DESIGN.md, Scale-out): a bump of
 * `runs.supersede_seq` is announced with NOTIFY in the transaction that bumps
 * it, so listeners hear of it exactly when it commits. LISTEN needs a
 * connection of its own (postgres.js `sql.listen`); on the embedded PGlite
 * there is one instance only and the listener does nothing, which is safe
 * because the instance's turn watcher also polls `supersede_seq` every 250 ms.
 */
import postgres from "postgres";
import type { Queryable } from "./db.ts";
import { RECONNECT_OPTIONS } from "./postgres_driver.ts";

export const SUPERSEDE_CHANNEL = "switchyard_supersede";

/** Sent inside the caller's transaction; PostgreSQL delivers it on commit, or never. */
export async function notifySuperseded(tx: Queryable, runId: string, seq: number): Promise<void> {
  await tx.query("SELECT pg_notify($1, $2)", [SUPERSEDE_CHANNEL, `${runId}:${seq}`]);
}

export interface SupersedeSignals {
  /** Calls `onSignal` with the new seq each time run `runId` is superseded; returns the unsubscribe. */
  watch(runId: string, onSignal: (seq: number) => void): () => void;
  close(): Promise<void>;
}

type Watchers = Map<string, Set<(seq: number) => void>>;

function dispatch(watchers: Watchers, payload: string): void {
  const colon = payload.lastIndexOf(":");
  const seq = Number(payload.slice(colon + 1));
  if (colon < 0 || !Number.isInteger(seq)) return;
  for (const onSignal of watchers.get(payload.slice(0, colon)) ?? []) onSignal(seq);
}

function watcher(watchers: Watchers): SupersedeSignals["watch"] {
  return (runId, onSignal) => {
    const set = watchers.get(runId) ?? new Set();
    set.add(onSignal);
    watchers.set(runId, set);
    return () => {
      set.delete(onSignal);
      if (set.size === 0) watchers.delete(runId);
    };
  };
}

/**
 * One listening connection per instance. With no database URL (PGlite) the
 * result never signals. Resolves once LISTEN is active, so a NOTIFY committed
 * afterwards is heard. The URL never reaches a log or an error.
 */
export async function openSupersedeSignals(
  databaseUrl: string | undefined,
): Promise<SupersedeSignals> {
  const watchers: Watchers = new Map();
  if (databaseUrl === undefined) {
    return { watch: watcher(watchers), close: () => Promise.resolve() };
  }
  const sql = postgres(databaseUrl, {
    ...RECONNECT_OPTIONS,
    max: 1,
    onnotice: () => {},
    debug: false,
    connection: { application_name: "switchyard-listen" },
  });
  try {
    await sql.listen(SUPERSEDE_CHANNEL, (payload) => dispatch(watchers, payload));
  } catch (error) {
    await sql.end({ timeout: 1 });
    throw error;
  }
  return {
    watch: watcher(watchers),
    async close() {
      watchers.clear();
      await sql.end({ timeout: 5 });
    },
  };
}
