import postgres from "postgres";
import type { Db, Queryable } from "./db.ts";

type Sql = postgres.Sql | postgres.TransactionSql;

/** A PostgreSQL server through postgres.js. The URL never reaches a log or an error body. */
export function openPostgres(url: string, options: { max?: number } = {}): Db {
  const sql = postgres(url, {
    max: options.max ?? 10,
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
  const wrap = (q: Sql): Queryable => ({
    async query<T>(text: string, params: readonly unknown[] = []) {
      // A plain array, like PGlite gives (postgres.js adds count, command, ...).
      // Prepared: every query text is a constant of a query function, so the
      // per-connection statement cache stays small and each is parsed once.
      return Array.from(
        await q.unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare: true }),
      ) as T[];
    },
    async exec(text: string) {
      await q.unsafe(text).simple();
    },
  });
  return {
    driver: "postgres",
    ...wrap(sql),
    transaction: async (fn) =>
      await sql.begin((tx) => fn(wrap(tx))) as Awaited<ReturnType<typeof fn>>,
    close: () => sql.end({ timeout: 5 }),
  };
}
