import { createHash } from "node:crypto";
import type { Db } from "./db.ts";
import { type Migration, MIGRATIONS, type Repeatable, REPEATABLES } from "./migrations.ts";

/** The table that records which migrations a database has applied (a backup makes it too). */
export const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version integer PRIMARY KEY,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

/** The table that records the content of each repeatable definition a database last applied. */
export const REPEATABLES_TABLE = `CREATE TABLE IF NOT EXISTS schema_repeatables (
  name text PRIMARY KEY,
  checksum text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

// Any constant shared by all instances: it serialises concurrent start-ups.
const MIGRATION_LOCK = 73310001;

/** The SHA-256 of a repeatable's text, as `schema_repeatables` records it. */
export function checksum(sql: string): string {
  return createHash("sha256").update(sql).digest("hex");
}

/**
 * Applies, in one transaction, the numbered migrations not yet applied, in
 * order, then each repeatable whose content differs from the one the database
 * last applied (or that it never applied), in the order given. Returns their
 * names. A database that has applied a numbered migration this version does
 * not know was migrated by a newer version: its repeatables are newer than
 * ours too, and are left as they are (an older instance starting during a
 * rolling deploy must not put back the functions it knew).
 */
export async function migrate(
  db: Db,
  migrations: readonly Migration[] = MIGRATIONS,
  repeatables: readonly Repeatable[] = REPEATABLES,
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
    const known = new Set(migrations.map((m) => m.version));
    if ([...applied].some((v) => !known.has(v))) return done;
    await tx.exec(REPEATABLES_TABLE);
    const recorded = new Map(
      (await tx.query<{ name: string; checksum: string }>(
        "SELECT name, checksum FROM schema_repeatables",
      )).map((r) => [r.name, r.checksum]),
    );
    for (const r of repeatables) {
      const sum = checksum(r.sql);
      if (recorded.get(r.name) === sum) continue;
      await tx.exec(r.sql);
      await tx.query(
        `INSERT INTO schema_repeatables (name, checksum) VALUES ($1, $2)
         ON CONFLICT (name) DO UPDATE SET checksum = excluded.checksum, applied_at = now()`,
        [r.name, sum],
      );
      done.push(r.name);
    }
    return done;
  });
}
