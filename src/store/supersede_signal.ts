/**
 * Supersede signals across instances (DESIGN.md, Scale-out): a bump of
 * `runs.supersede_seq` is announced with NOTIFY in the transaction that bumps
 * it, so listeners hear of it exactly when it commits. LISTEN needs a
 * connection of its own (postgres.js `sql.listen`); on the embedded PGlite
 * there is one instance only and the listener does nothing, which is safe
 * because the instance's turn watcher also polls `supersede_seq` every 250 ms.
 */
import postgres from "postgres";
import { DEFAULT_STATEMENT_TIMEOUT_MS } from "../config.ts";
import type { Queryable } from "./db.ts";
import { CONNECTION_OPTIONS, sessionSettings } from "./postgres_driver.ts";
import { clientDeadlineMs, withinDeadline } from "./statement_deadline.ts";

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

/** A probe's payload: never a run id, so no watcher takes it for a signal. */
const PROBE_PREFIX = "probe-";

/**
 * One listening connection per instance. With no database URL (PGlite) the
 * result never signals. Resolves once LISTEN is active, so a NOTIFY committed
 * afterwards is heard. The URL never reaches a log or an error.
 *
 * A listening connection that a stalled network has cut off never fails: it
 * just hears nothing, for ever. So every `statementTimeoutMs` (at least a
 * second) the listener sends a NOTIFY of its own and, when it does not hear it
 * back within the statement deadline, listens again on fresh connections.
 * Until then the turn watcher's poll stands in for it.
 */
export async function openSupersedeSignals(
  databaseUrl: string | undefined,
  options: { statementTimeoutMs?: number } = {},
): Promise<SupersedeSignals> {
  const watchers: Watchers = new Map();
  if (databaseUrl === undefined) {
    return { watch: watcher(watchers), close: () => Promise.resolve() };
  }
  const timeoutMs = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  const deadlineMs = clientDeadlineMs(timeoutMs);
  const connect = () =>
    postgres(databaseUrl, {
      ...CONNECTION_OPTIONS,
      // One connection sends the probes; postgres.js listens on one of its own.
      max: 1,
      onnotice: () => {},
      debug: false,
      connection: sessionSettings("switchyard-listen", timeoutMs),
    });
  let awaited: { payload: string; heard: () => void } | null = null;
  const onPayload = (payload: string) => {
    if (payload.startsWith(PROBE_PREFIX)) {
      if (payload === awaited?.payload) awaited.heard();
    } else {
      dispatch(watchers, payload);
    }
  };
  const listen = (sql: postgres.Sql) =>
    withinDeadline(sql.listen(SUPERSEDE_CHANNEL, onPayload), deadlineMs, () => {});

  let sql = connect();
  try {
    await listen(sql);
  } catch (error) {
    await sql.end({ timeout: 0 });
    throw error;
  }

  /** Whether a NOTIFY of our own comes back within the deadline. */
  const hears = async (pool: postgres.Sql): Promise<boolean> => {
    const payload = `${PROBE_PREFIX}${crypto.randomUUID()}`;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const heard = new Promise<boolean>((resolve) => {
      awaited = { payload, heard: () => resolve(true) };
      timer = setTimeout(() => resolve(false), deadlineMs);
    });
    const sent = withinDeadline(pool.notify(SUPERSEDE_CHANNEL, payload), deadlineMs, () => {})
      .then(() => true, () => false);
    try {
      return await sent && await heard;
    } finally {
      clearTimeout(timer);
      awaited = null;
    }
  };
  let probing = false;
  let closed = false;
  const probe = setInterval(async () => {
    if (probing) return;
    probing = true;
    try {
      if (await hears(sql) || closed) return;
      const deaf = sql;
      sql = connect();
      deaf.end({ timeout: 0 }).catch(() => {});
      // A failure here (the database is still away) is retried at the next probe.
      await listen(sql).catch(() => {});
    } finally {
      probing = false;
    }
  }, Math.max(timeoutMs, 1_000));

  return {
    watch: watcher(watchers),
    async close() {
      closed = true;
      clearInterval(probe);
      watchers.clear();
      await sql.end({ timeout: 5 });
    },
  };
}
