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
  });
  const wrap = (q: Sql): Queryable => ({
    async query<T>(text: string, params: readonly unknown[] = []) {
      return await q.unsafe(text, params as postgres.ParameterOrJSON<never>[]) as unknown as T[];
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
