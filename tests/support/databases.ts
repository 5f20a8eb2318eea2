import postgres from "postgres";
import { openPgliteThread } from "../../src/store/pglite_thread.ts";
import { openPostgres } from "../../src/store/postgres_driver.ts";
import type { Db } from "../../src/store/db.ts";

/** A PostgreSQL database made for one test run and dropped after it. */
export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function createScratchDatabase(adminUrl: string): Promise<ScratchDatabase> {
  const name = `switchyard_test_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const a = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await a.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}

/** The store implementations every store test runs against: PGlite (on its own thread, as the service runs it) always, PostgreSQL when configured. */
export interface StoreUnderTest {
  name: string;
  open(): Promise<
    {
      db: Db; /** another connection to the same data, as a second instance would have */
      reopen?(): Promise<Db>;
      dispose(): Promise<void>;
    }
  >;
}

export function storesUnderTest(env: Record<string, string | undefined>): StoreUnderTest[] {
  const stores: StoreUnderTest[] = [{
    name: "PGlite",
    async open() {
      const db = await openPgliteThread("memory://");
      return { db, dispose: () => db.close() };
    },
  }];
  const adminUrl = env.DATABASE_URL;
  if (adminUrl) {
    stores.push({
      name: "PostgreSQL",
      async open() {
        const scratch = await createScratchDatabase(adminUrl);
        const opened: Db[] = [];
        const reopen = () => {
          const db = openPostgres(scratch.url, { maxConnections: 4 });
          opened.push(db);
          return Promise.resolve(db);
        };
        const db = await reopen();
        return {
          db,
          reopen,
          async dispose() {
            for (const d of opened) await d.close();
            await scratch.drop();
          },
        };
      },
    });
  }
  return stores;
}
