import postgres from "postgres";
import type { Db, Queryable } from "./db.ts";
import { rethrowStorageFault } from "./storage_fault.ts";

type Sql = postgres.Sql | postgres.TransactionSql;

/**
 * How long a request waits for a connection when the server is down or
 * restarting (postgres.js retries within it), before answering storage_error.
 */
const CONNECT_TIMEOUT_S = 5;
/** Idle pooled connections are closed: one a restart or a proxy cut silently is not kept. */
const IDLE_TIMEOUT_S = 60;

/**
 * Options for every connection to the server. postgres.js waits before
 * reconnecting after a failed attempt, by default up to 20 s: a request would
 * wait that long to be told the database is down, and the service as long to
 * notice it is back. A short, capped wait keeps both within a second.
 */
export const RECONNECT_OPTIONS = {
  connect_timeout: CONNECT_TIMEOUT_S,
  backoff: (retries: number) => Math.min(0.05 * retries, 0.5),
};

/**
 * A PostgreSQL server through postgres.js. The URL never reaches a log or an
 * error body. A lost server fails each query with storage_error (see
 * storage_fault.ts); postgres.js opens fresh connections for the next ones, so
 * the service recovers by itself once the server is back.
 */
export function openPostgres(url: string, options: { maxConnections: number }): Db {
  const open = () =>
    postgres(url, {
      max: options.maxConnections,
      ...RECONNECT_OPTIONS,
      idle_timeout: IDLE_TIMEOUT_S,
      onnotice: () => {},
      // Keep query text and parameters out of error objects that might be logged.
      debug: false,
      connection: { application_name: "switchyard" },
      // JSON goes in as text (see db.ts), exactly as PGlite takes it; postgres.js
      // would otherwise encode a string parameter a second time.
      types: {
        jsonText: {
          to: 114,
          from: [114, 3802],
          serialize: (x: unknown) => typeof x === "string" ? x : JSON.stringify(x),
          parse: (x: string) => JSON.parse(x),
        },
      },
    });
  let sql = open();
  /**
   * A connection that timed out connecting is left for a fresh pool: in
   * postgres.js 3.4.9 a socket that closes while a write is still buffered
   * leaves its connection unable to send anything again (its next startup
   * message waits behind a cancelled flush, postgres.js pull request #1214 and
   * the issues it fixes), so every later attempt on it times out as well.
   */
  const failed = (pool: postgres.Sql) => (error: unknown): never => {
    if ((error as { code?: unknown } | null)?.code === "CONNECT_TIMEOUT" && pool === sql) {
      sql = open();
      direct = wrap(sql, sql);
      pool.end({ timeout: 0 }).catch(() => {});
    }
    return rethrowStorageFault(error);
  };
  const wrap = (q: Sql, pool: postgres.Sql): Queryable => {
    const fail = failed(pool);
    return {
      async query<T>(text: string, params: readonly unknown[] = []) {
        // A plain array, like PGlite gives (postgres.js adds count, command, ...).
        // Prepared: every query text is a constant of a query function, so the
        // per-connection statement cache stays small and each is parsed once.
        const rows = await q.unsafe(text, params as postgres.ParameterOrJSON<never>[], {
          prepare: true,
        }).catch(fail);
        return Array.from(rows) as T[];
      },
      async exec(text: string) {
        await q.unsafe(text).simple().catch(fail);
      },
    };
  };
  let direct = wrap(sql, sql);
  return {
    driver: "postgres",
    query: (text, params) => direct.query(text, params),
    exec: (text) => direct.exec(text),
    transaction: async (fn) => {
      const pool = sql;
      return await pool.begin((tx) => fn(wrap(tx, pool))).catch(failed(pool)) as Awaited<
        ReturnType<typeof fn>
      >;
    },
    close: () => sql.end({ timeout: 5 }),
  };
}
