import type { Db } from "./db.ts";
import { type Migration, MIGRATIONS } from "./migrations.ts";

/** The table that records which migrations a database has applied (a backup makes it too). */
export const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version integer PRIMARY KEY,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

// Any constant shared by all instances: it serialises concurrent start-ups.
const MIGRATION_LOCK = 73310001;

/** Applies the migrations not yet applied, in order, in one transaction. Returns their names. */
export async function migrate(
  db: Db,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<string[]> {
  return await db.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    await tx.exec(MIGRATIONS_TABLE);
    const rows = await tx.query<{ version: number }>("SELECT version FROM schema_migrations");
    const applied = new Set(rows.map((r) => r.version));
    const done: string[] = [];
    for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
      if (applied.has(m.version)) continue;
      await tx.exec(m.sql);
      await tx.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [
        m.version,
        m.name,
      ]);
      done.push(m.name);
    }
    return done;
  });
}
