import type { Db, Queryable } from "./db.ts";

/**
 * A Db over a single connection (the embedded store has only one): transactions
 * take turns, and a statement sent outside a transaction waits while one is
 * open, so it never runs inside another caller's BEGIN … COMMIT.
 */
export function oneConnection(direct: Queryable, close: () => Promise<void>): Db {
  let queue: Promise<void> = Promise.resolve();
  let open: Promise<void> | null = null;
  const outsideTransactions = async () => {
    while (open !== null) await open;
  };
  return {
    driver: "pglite",
    async query<T>(text: string, params?: readonly unknown[]) {
      await outsideTransactions();
      return await direct.query<T>(text, params);
    },
    async exec(text) {
      await outsideTransactions();
      await direct.exec(text);
    },
    async transaction(fn) {
      let end!: () => void;
      const mine = new Promise<void>((resolve) => end = resolve);
      const previous = queue;
      queue = previous.then(() => mine);
      await previous;
      // Set in the same tick as BEGIN is sent: a statement sent before it runs before it.
      open = mine;
      try {
        await direct.query("BEGIN");
        try {
          const result = await fn(direct);
          await direct.query("COMMIT");
          return result;
        } catch (error) {
          await direct.query("ROLLBACK").catch(() => {});
          throw error;
        }
      } finally {
        open = null;
        end();
      }
    },
    async close() {
      await queue;
      await close();
    },
  };
}
