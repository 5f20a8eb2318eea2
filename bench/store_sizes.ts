/**
 * The embedded store's tables and indexes on disk, read from outside the
 * service that holds it: the size of every relation file under `base/`,
 * snapshotted while it runs, named afterwards (once the service stopped and
 * the directory can be opened) by the table each file belongs to. A table
 * counts its TOAST table; an index counts as its table's.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { openPgliteThread } from "../src/store/pglite_thread.ts";

/** Bytes per relation file node (`<database oid>/<filenode>`), every fork and segment summed. */
export type SizeSnapshot = Map<string, number>;

export function snapshotSizes(dataDir: string): SizeSnapshot {
  const sizes: SizeSnapshot = new Map();
  const base = join(dataDir, "base");
  for (const db of readdirSync(base)) {
    for (const file of readdirSync(join(base, db))) {
      const node = /^(\d+)/.exec(file)?.[1];
      if (node === undefined) continue;
      const key = `${db}/${node}`;
      try {
        sizes.set(key, (sizes.get(key) ?? 0) + statSync(join(base, db, file)).size);
      } catch { /* removed between listing and reading */ }
    }
  }
  return sizes;
}

export interface RelationName {
  table: string;
  kind: "table" | "index";
}

/** Which of the schema's tables each file node belongs to; opens the (stopped) store. */
export async function relationNames(dataDir: string): Promise<Map<string, RelationName>> {
  const db = await openPgliteThread(dataDir);
  try {
    const rows = await db.query<{ key: string; owner: string; kind: "table" | "index" }>(
      `WITH owners AS (
         SELECT c.oid, c.relname AS owner, c.reltoastrelid AS toast
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = 'public' AND c.relkind = 'r'
       ), rels AS (
         SELECT oid AS rel, owner, 'table' AS kind FROM owners
         UNION ALL SELECT toast, owner, 'table' FROM owners WHERE toast <> 0
         UNION ALL SELECT i.indexrelid, o.owner, 'index'
           FROM owners o JOIN pg_index i ON i.indrelid IN (o.oid, o.toast)
       )
       SELECT (SELECT oid FROM pg_database WHERE datname = current_database())::text || '/' ||
              pg_relation_filenode(rel)::text AS key, owner, kind
       FROM rels`,
    );
    return new Map(rows.map((r) => [r.key, { table: r.owner, kind: r.kind }]));
  } finally {
    await db.close();
  }
}

/** A snapshot's bytes per table and kind ("messages table", "messages index"). */
export function sizesByTable(
  snapshot: SizeSnapshot,
  names: Map<string, RelationName>,
): Map<string, { table: number; index: number }> {
  const out = new Map<string, { table: number; index: number }>();
  for (const [key, bytes] of snapshot) {
    const name = names.get(key);
    if (name === undefined) continue;
    const entry = out.get(name.table) ?? { table: 0, index: 0 };
    entry[name.kind] += bytes;
    out.set(name.table, entry);
  }
  return out;
}
