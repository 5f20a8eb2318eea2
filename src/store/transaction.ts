import type { Db, Queryable } from "./db.ts";

function canBegin(db: Queryable): db is Db {
  return typeof (db as Partial<Db>).transaction === "function";
}

/**
 * Runs `fn` in a transaction of its own when given the store, or inside the
 * caller's transaction when given one: query functions that need several
 * statements to be atomic work in both places.
 */
export async function inTransaction<T>(
  db: Queryable,
  fn: (tx: Queryable) => Promise<T>,
): Promise<T> {
  return canBegin(db) ? await db.transaction(fn) : await fn(db);
}

/** PostgreSQL's SQLSTATE for a unique violation, as both drivers expose it on `code`. */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "23505";
}
