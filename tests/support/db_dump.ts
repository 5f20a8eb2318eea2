import assert from "node:assert/strict";
import type { Queryable } from "../../src/store/db.ts";

/** Every row of every table of the schema as JSON text, in a stable order: what a scan for plaintext reads. */
export async function dumpDatabase(db: Queryable): Promise<string> {
  const tables = await db.query<{ tablename: string }>(
    "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
  );
  assert.ok(tables.length >= 10, "the whole schema is scanned");
  const parts: string[] = [];
  for (const { tablename } of tables) {
    const rows = await db.query<{ row: string }>(
      `SELECT row_to_json(t)::text AS row FROM "${tablename}" t ORDER BY 1`,
    );
    parts.push(`-- ${tablename}`, ...rows.map((r) => r.row));
  }
  return parts.join("\n");
}

/** Every Switchyard function of the schema, by signature, as `pg_get_functiondef` prints it. */
export async function functionDefinitions(db: Queryable): Promise<Record<string, string>> {
  const rows = await db.query<{ signature: string; definition: string }>(
    `SELECT p.oid::regprocedure::text AS signature, pg_get_functiondef(p.oid) AS definition
     FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname = 'public' AND p.proname LIKE 'switchyard\\_%'
     ORDER BY 1`,
  );
  return Object.fromEntries(rows.map((r) => [r.signature, r.definition]));
}
