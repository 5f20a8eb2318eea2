import postgres from "postgres";
import { DEFAULT_STATEMENT_TIMEOUT_MS } from "../config.ts";
import type { Db, Queryable } from "./db.ts";
import { clientDeadlineMs, watchdog, withinDeadline } from "./statement_deadline.ts";
import { watchedSocketOption } from "./postgres_socket.ts";
import { rethrowStorageFault } from "./storage_fault.ts";

type Sql = postgres.Sql | postgres.TransactionSql;

/**
 * How long a request waits for a connection when the server is down or
 * restarting (postgres.js retries within it), before answering storage_error.
 */
export const CONNECT_TIMEOUT_S = 5;
/** Idle pooled connections are closed: one a restart or a proxy cut silently is not kept. */
const IDLE_TIMEOUT_S = 60;

/** The first reconnect after a failed attempt waits this long; each failure in a row adds as much. */
export const RECONNECT_STEP_S = 0.025;
/** The longest wait between two attempts. */
export const RECONNECT_MAX_S = 0.1;

/**
 * Seconds postgres.js waits before a connection's next attempt after
 * `retries` failed ones in a row (counted across the pool). Its default
 * grows to 20 s. While the server is away, every request waits in the
 * driver's queue until an attempt takes it and fails (then it answers
 * storage_error), and once the server is back no connection opens before its
 * wait is over: the cap is what the service adds to a restart, and how long
 * a request waits to hear the database is down. A tenth of a second costs a
 * pool of a few connections some tens of refused connects a second while the
 * server is down, nothing to a server that is up.
 */
export function reconnectDelayS(retries: number): number {
  return Math.min(RECONNECT_STEP_S * retries, RECONNECT_MAX_S);
}

/**
 * How long a statement waits for a server that is starting up. A connection
 * attempt that reaches a server still replaying its log after a crash is
 * refused with 57P03 ("the database system is starting up", "... not yet
 * accepting connections"), and postgres.js fails the statement that asked for
 * the connection, so requests that waited through the outage would answer
 * storage_error just as the server comes back. Such a statement was never
 * sent, and is tried again while the server said it is starting up, for up to
 * this long (a shutting-down server is not waited for).
 */
export const STARTING_UP_WAIT_MS = 1_000;

/** Whether a statement failed because the server it tried to connect to is still starting up. */
export function refusedWhileStartingUp(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return e?.code === "57P03" && typeof e.message === "string" &&
    !e.message.includes("shutting down");
}

/**
 * Runs `attempt` again while it fails because the server is starting up,
 * until `STARTING_UP_WAIT_MS` after the first such failure.
 */
async function throughStartUp<T>(
  attempt: () => Promise<T>,
  mayRetry: () => boolean = () => true,
): Promise<T> {
  let since: number | null = null;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (!refusedWhileStartingUp(error) || !mayRetry()) throw error;
      since ??= performance.now();
      if (performance.now() - since > STARTING_UP_WAIT_MS) throw error;
    }
  }
}

/** Options for every connection to the server (the pool, the liveness lock, the listener). */
export const CONNECTION_OPTIONS = {
  connect_timeout: CONNECT_TIMEOUT_S,
  backoff: reconnectDelayS,
  // Otherwise postgres.js sends a query of its own (the server's array types) as each connection
  // opens, and nothing awaits it: a pool ended under it (a replaced pool, a closing service)
  // rejects it unhandled, and an unhandled rejection ends a Deno process. Array parameters are
  // serialized by `ARRAY_PARAMETERS` instead.
  fetch_types: false,
};

/** An array parameter as PostgreSQL's array literal, each element quoted (null as NULL). */
export function arrayLiteral(values: readonly unknown[]): string {
  const element = (v: unknown) => v === null ? "NULL" : `"${String(v).replace(/[\\"]/g, "\\$&")}"`;
  return `{${values.map(element).join(",")}}`;
}

/**
 * Serializers for the array types a parameter may have (postgres.js learns
 * them from the server only with `fetch_types`). Array results are not parsed:
 * a query that returns a list builds it as json, which both stores parse.
 */
const ARRAY_PARAMETERS = Object.fromEntries(
  Object.entries({ bool: 1000, int4: 1007, text: 1009, varchar: 1015, int8: 1016, uuid: 2951 })
    .map(([name, oid]) => [
      `${name}Array`,
      { to: oid, from: [], serialize: arrayLiteral, parse: (literal: string) => literal },
    ]),
);

/**
 * Session settings sent when a connection opens: the server cancels any
 * statement of ours that runs longer than `statementTimeoutMs` (SQLSTATE
 * 57014, answered storage_error), and the connection stays usable. A pooler
 * that refuses unknown startup parameters (PgBouncer does, unless the name is
 * in its `ignore_startup_parameters`) must be told to let it through.
 */
export function sessionSettings(applicationName: string, statementTimeoutMs: number) {
  return { application_name: applicationName, statement_timeout: statementTimeoutMs };
}

export interface PostgresOptions {
  maxConnections: number;
  /** `router.database.statement_timeout_ms`. */
  statementTimeoutMs?: number;
}

/**
 * A PostgreSQL server through postgres.js. The URL never reaches a log or an
 * error body. A lost server fails each query with storage_error (see
 * storage_fault.ts); postgres.js opens fresh connections for the next ones, so
 * the service recovers by itself once the server is back. A server that stops
 * answering without going away fails each statement at its deadline, and the
 * pool is replaced (statement_deadline.ts).
 */
export function openPostgres(url: string, options: PostgresOptions): Db {
  const timeoutMs = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  const deadlineMs = clientDeadlineMs(timeoutMs);
  const open = (): postgres.Sql => {
    const pool: postgres.Sql = postgres(url, {
      max: options.maxConnections,
      ...CONNECTION_OPTIONS,
      // A connection that can no longer send (postgres_socket.ts) is reason to replace the pool.
      ...watchedSocketOption(() => replace(pool)),
      idle_timeout: IDLE_TIMEOUT_S,
      onnotice: () => {},
      // Keep query text and parameters out of error objects that might be logged.
      debug: false,
      connection: sessionSettings("switchyard", timeoutMs),
      // JSON goes in as text (see db.ts), exactly as PGlite takes it; postgres.js
      // would otherwise encode a string parameter a second time.
      types: {
        ...ARRAY_PARAMETERS,
        jsonText: {
          to: 114,
          from: [114, 3802],
          serialize: (x: unknown) => typeof x === "string" ? x : JSON.stringify(x),
          parse: (x: string) => JSON.parse(x),
        },
      },
    });
    return pool;
  };
  let sql = open();
  /**
   * Replaces the pool by a fresh one, once: its connections are destroyed at
   * once, failing what waits on them (storage_error). postgres.js has no way
   * to drop one connection of a pool; a connection that cannot be trusted is
   * reason enough to drop all of them, since they lead to the same server.
   */
  const replace = (pool: postgres.Sql) => {
    if (pool !== sql) return;
    sql = open();
    direct = wrap(sql, sql);
    pool.end({ timeout: 0 }).catch(() => {});
  };
  /**
   * A connection that timed out connecting is left for a fresh pool: in
   * postgres.js 3.4.9 a socket that closes while a write is still buffered
   * leaves its connection unable to send anything again (its next startup
   * message waits behind a cancelled flush, postgres.js pull request #1214 and
   * the issues it fixes), so every later attempt on it times out as well.
   */
  const failed = (pool: postgres.Sql) => (error: unknown): never => {
    if ((error as { code?: unknown } | null)?.code === "CONNECT_TIMEOUT") replace(pool);
    return rethrowStorageFault(error);
  };
  const wrap = (q: Sql, pool: postgres.Sql): Queryable => {
    const fail = failed(pool);
    const expired = () => replace(pool);
    return {
      async query<T>(text: string, params: readonly unknown[] = []) {
        // A plain array, like PGlite gives (postgres.js adds count, command, ...).
        // Prepared: every query text is a constant of a query function, so the
        // per-connection statement cache stays small and each is parsed once.
        const rows = await throughStartUp(() =>
          withinDeadline(
            q.unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare: true }),
            deadlineMs,
            expired,
          )
        ).catch(fail);
        return Array.from(rows) as T[];
      },
      async exec(text: string) {
        await withinDeadline(q.unsafe(text).simple(), deadlineMs, expired).catch(fail);
      },
    };
  };
  let direct = wrap(sql, sql);
  return {
    driver: "postgres",
    flushesUnsyncedCommits: true,
    query: (text, params) => direct.query(text, params),
    exec: (text) => direct.exec(text),
    transaction: async (fn) => {
      let began = false;
      let pool = sql;
      const once = async () => {
        pool = sql;
        // The statements of `fn` have their own deadlines; BEGIN, COMMIT and
        // ROLLBACK, which postgres.js sends, are watched from outside.
        const guard = watchdog(deadlineMs, () => replace(pool));
        guard.arm();
        const run = pool.begin(async (tx) => {
          began = true;
          guard.disarm();
          try {
            const result = await fn(wrap(tx, pool));
            guard.arm();
            return result;
          } catch (error) {
            guard.arm();
            throw error;
          }
        });
        try {
          return await Promise.race([run, guard.tripped]) as Awaited<ReturnType<typeof fn>>;
        } finally {
          guard.disarm();
        }
      };
      try {
        // Only a BEGIN that never reached the server is tried again: `fn` has not run.
        return await throughStartUp(once, () => !began);
      } catch (error) {
        return failed(pool)(error);
      }
    },
    close: () => sql.end({ timeout: 5 }),
  };
}
