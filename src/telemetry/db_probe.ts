/**
 * The store as seen by metrics: a `Db` wrapper timing every statement and
 * transaction by its kind, and counting the connections they hold (a
 * transaction holds one for its length; its statements add none). The store's
 * query functions never know it is there.
 */
import type { Db, Queryable } from "../store/db.ts";
import type { Instruments } from "./instruments.ts";

const KINDS = ["select", "insert", "update", "delete", "with"] as const;

/** The statement's first keyword, without building a string per call. */
export function statementKind(text: string): string {
  let i = 0;
  while (i < text.length && text.charCodeAt(i) <= 32) i++;
  for (const kind of KINDS) {
    if (text.startsWith(kind.toUpperCase(), i) || text.startsWith(kind, i)) return kind;
  }
  return "other";
}

export function instrumentDb(db: Db, m: Instruments, poolMax: number): Db {
  const d = m.db(db.driver);
  m.families.dbPoolMax.labels(db.driver).set(poolMax);
  const timed = (q: Queryable, holds: boolean): Queryable => ({
    async query<T>(text: string, params?: readonly unknown[]) {
      const started = performance.now();
      if (holds) d.inUse.inc();
      try {
        return await q.query<T>(text, params);
      } finally {
        if (holds) d.inUse.dec();
        d.kind(statementKind(text)).observe((performance.now() - started) / 1000);
      }
    },
    exec: (text) => q.exec(text),
  });
  return {
    driver: db.driver,
    flushesUnsyncedCommits: db.flushesUnsyncedCommits,
    ...timed(db, true),
    async transaction(fn) {
      const started = performance.now();
      d.inUse.inc();
      try {
        return await db.transaction((tx) => fn(timed(tx, false)));
      } finally {
        d.inUse.dec();
        d.kind("transaction").observe((performance.now() - started) / 1000);
      }
    },
    close: () => db.close(),
  };
}
