/**
 * A backup of the embedded store is a logical dump in PostgreSQL's plain SQL
 * format, the one `psql` loads: the migrations the store has applied (the
 * schema is their SQL), then every table's rows as `COPY … FROM stdin` in
 * PostgreSQL's own text format, then the identity sequences, all in one
 * transaction with triggers and foreign-key checks off while rows go in.
 *
 * A copy of the data directory (PGlite's `dumpDataDir`) would be faster to
 * make and restore, but it loads only into the same PostgreSQL major version
 * (a PGlite upgrade across one is when a backup matters most), only into
 * PGlite, and it carries the template's system identifier, indexes and WAL.
 * This dump restores into any later PGlite or into a PostgreSQL server, and
 * the text format keeps every value exactly.
 */
import type { Migration } from "./migrations.ts";
import { MIGRATIONS_TABLE } from "./migrate.ts";

/** The first line of every backup; `restore` refuses a file without it. */
export const BACKUP_HEADER = "-- Switchyard backup of the embedded store";

/** The last line of every backup: a file cut short lacks it, and `restore` refuses it. */
export const BACKUP_END = "COMMIT;\n";

/** What a dump needs of a store: statements, and a table's rows in COPY's text format. */
export interface DumpSource {
  query<T>(text: string): Promise<T[]>;
  copyOut(table: string, columns: readonly string[]): Promise<Uint8Array>;
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * The store read by `source` as a dump, in pieces to write one after another.
 * `migrations` are the ones this version knows; a store that has applied one
 * it does not know is refused (a newer version made it).
 */
export async function* dumpStore(
  source: DumpSource,
  migrations: readonly Migration[],
  made: { version: string; at: Date },
): AsyncGenerator<string | Uint8Array> {
  const applied = await source.query<{ version: number }>(
    "SELECT version FROM schema_migrations ORDER BY version",
  );
  const known = new Map(migrations.map((m) => [m.version, m]));
  const unknown = applied.find((a) => !known.has(a.version));
  if (unknown !== undefined) {
    throw new Error(
      `the store has migration ${unknown.version}, which this version does not know: ` +
        "back it up with the version that made it",
    );
  }
  const tables = await source.query<{ name: string; columns: string[] }>(
    `SELECT c.relname AS name,
            array_agg(a.attname::text ORDER BY a.attnum) AS columns
     FROM pg_class c
     JOIN pg_namespace n ON n.oid = c.relnamespace
     JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
       AND a.attgenerated = ''
     WHERE n.nspname = 'public' AND c.relkind = 'r'
     GROUP BY c.relname ORDER BY c.relname`,
  );
  const sequences = await source.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind = 'S' ORDER BY c.relname`,
  );
  yield [
    BACKUP_HEADER,
    `-- made by Switchyard ${made.version} at ${made.at.toISOString()}`,
    `-- migrations ${applied.map((a) => a.version).join(", ")}; tables ${tables.length}`,
    "-- Load into an empty database: psql -v ON_ERROR_STOP=1 -f <this file> <database>",
    "SET client_encoding = 'UTF8';",
    "SET standard_conforming_strings = on;",
    "SET check_function_bodies = false;",
    "SET search_path = public;",
    "BEGIN;",
    MIGRATIONS_TABLE + ";",
    "",
  ].join("\n");
  for (const { version } of applied) {
    const m = known.get(version)!;
    yield `-- migration ${m.name}\n${m.sql.trimEnd()}\n\n`;
  }
  // Rows exactly as they were: no trigger fires and no foreign key is checked while they go in.
  yield "SET session_replication_role = replica;\n";
  for (const t of tables) {
    yield `\nCOPY public.${quoted(t.name)} (${t.columns.map(quoted).join(", ")}) FROM stdin;\n`;
    yield await source.copyOut(t.name, t.columns);
    yield "\\.\n";
  }
  for (const s of sequences) {
    const [v] = await source.query<{ last_value: string; is_called: boolean }>(
      `SELECT last_value::text, is_called FROM public.${quoted(s.name)}`,
    );
    yield `SELECT pg_catalog.setval('public.${
      quoted(s.name)
    }', ${v.last_value}, ${v.is_called});\n`;
  }
  yield `SET session_replication_role = origin;\n${BACKUP_END}`;
}

/** A dump's statements and COPY blocks, in order, as `restore` replays them. */
export type DumpPart =
  | { kind: "sql"; text: string }
  | { kind: "copy"; statement: string; data: Uint8Array };

/** Splits a dump made by `dumpStore` (its COPY blocks end at a line `\.`). */
export function* dumpParts(dump: Uint8Array): Generator<DumpPart> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const header = new TextEncoder().encode(BACKUP_HEADER);
  if (!header.every((byte, i) => dump[i] === byte)) {
    throw new Error("not a Switchyard backup: its first line is not the backup header");
  }
  const end = new TextEncoder().encode(BACKUP_END);
  if (!end.every((byte, i) => dump[dump.length - end.length + i] === byte)) {
    throw new Error("the backup is cut short: it does not end with its COMMIT");
  }
  let sql = "";
  let at = 0;
  while (at < dump.length) {
    let end = dump.indexOf(10, at);
    if (end === -1) end = dump.length;
    const line = decoder.decode(dump.subarray(at, end));
    at = end + 1;
    if (!/^COPY .* FROM stdin;$/.test(line)) {
      sql += line + "\n";
      continue;
    }
    if (sql.trim() !== "") yield { kind: "sql", text: sql };
    sql = "";
    const from = at;
    for (;;) {
      if (at >= dump.length) throw new Error("the backup is cut short inside a table's rows");
      let next = dump.indexOf(10, at);
      if (next === -1) next = dump.length;
      const isEnd = next - at === 2 && dump[at] === 92 && dump[at + 1] === 46; // "\."
      if (isEnd) {
        yield { kind: "copy", statement: line, data: dump.subarray(from, at) };
        at = next + 1;
        break;
      }
      at = next + 1;
    }
  }
  if (sql.trim() !== "") yield { kind: "sql", text: sql };
}
