/**
 * A backup of the embedded store is a logical dump in PostgreSQL's plain SQL
 * format, the one `psql` loads: the migrations the store has applied (the
 * schema is their SQL), then its functions as it has them (the repeatable
 * definitions it applied after those migrations, as `pg_get_functiondef`
 * prints them: exactly what the store ran, whichever version applied them),
 * then every table's rows as `COPY … FROM stdin` in PostgreSQL's own text
 * format (`schema_repeatables` among them), then the identity sequences, all
 * in one transaction with triggers and foreign-key checks off while rows go in.
 *
 * A copy of the data directory (PGlite's `dumpDataDir`) would be faster to
 * make and restore, but it loads only into the same PostgreSQL major version
 * (a PGlite upgrade across one is when a backup matters most), only into
 * PGlite, and it carries the template's system identifier, indexes and WAL.
 * This dump restores into any later PGlite or into a PostgreSQL server, and
 * the text format keeps every value exactly.
 */
import type { Migration } from "./migrations.ts";
import { MIGRATIONS_TABLE, REPEATABLES_TABLE } from "./migrate.ts";

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
            json_agg(a.attname ORDER BY a.attnum) AS columns
     FROM pg_class c
     JOIN pg_namespace n ON n.oid = c.relnamespace
     JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
       AND a.attgenerated = ''
     WHERE n.nspname = 'public' AND c.relkind = 'r'
     GROUP BY c.relname ORDER BY c.relname`,
  );
  const functions = await source.query<{ definition: string }>(
    `SELECT pg_get_functiondef(p.oid) AS definition
     FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname = 'public' AND p.prokind = 'f'
       AND NOT EXISTS (SELECT 1 FROM pg_depend d
                       WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid
                         AND d.deptype = 'e')
     ORDER BY p.oid::regprocedure::text`,
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
    REPEATABLES_TABLE + ";",
    "",
  ].join("\n");
  for (const { version } of applied) {
    const m = known.get(version)!;
    yield `-- migration ${m.name}\n${m.sql.trimEnd()}\n\n`;
  }
  yield "-- functions as the store has them\n";
  for (const f of functions) yield `${f.definition.trimEnd()};\n\n`;
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

/**
 * A dump's statements and COPY blocks, in order, as `restore` replays them. A
 * block's rows come in pieces of whole rows, each about `pieceBytes` (more
 * only by one row), so what is held at once does not grow with the dump.
 */
export type DumpPart =
  | { kind: "sql"; text: string }
  /** `first`: the block's first piece (an empty table's only one, with no rows). */
  | { kind: "copy"; statement: string; data: Uint8Array; first: boolean };

/** About how many bytes of rows one piece of a COPY block holds. */
export const COPY_PIECE_BYTES = 1024 * 1024;

const HEADER_BYTES = new TextEncoder().encode(BACKUP_HEADER);
const END_BYTES = new TextEncoder().encode(BACKUP_END);
/** How many of a file's first and last bytes `checkDumpHead` and `checkDumpTail` read. */
export const DUMP_HEAD_BYTES = HEADER_BYTES.length;
export const DUMP_TAIL_BYTES = END_BYTES.length;

const startsWith = (bytes: Uint8Array, prefix: Uint8Array) =>
  bytes.length >= prefix.length && prefix.every((byte, i) => bytes[i] === byte);

/** Refuses a file whose first bytes are not the backup header. */
export function checkDumpHead(head: Uint8Array): void {
  if (!startsWith(head, HEADER_BYTES)) {
    throw new Error("not a Switchyard backup: its first line is not the backup header");
  }
}

/** Refuses a file whose last bytes are not the backup's COMMIT (a file cut short). */
export function checkDumpTail(tail: Uint8Array): void {
  if (!startsWith(tail.subarray(tail.length - END_BYTES.length), END_BYTES)) {
    throw new Error("the backup is cut short: it does not end with its COMMIT");
  }
}

function joined(pieces: readonly Uint8Array[], separator?: number): Uint8Array {
  let length = 0;
  for (const p of pieces) length += p.length + (separator === undefined ? 0 : 1);
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of pieces) {
    out.set(p, at);
    at += p.length;
    if (separator !== undefined) out[at++] = separator;
  }
  return out;
}

/**
 * The lines of `chunks` (without their "\n"), a chunk's worth at a time, each
 * checked against the backup's header and end as the bytes go by. A line is a
 * view of its chunk unless it spans several, so nothing is copied twice.
 */
async function* dumpLines(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array[]> {
  let head: Uint8Array = new Uint8Array(0);
  let tail: Uint8Array = new Uint8Array(0);
  /** A line begun in earlier chunks. */
  let begun: Uint8Array[] = [];
  for await (const chunk of chunks) {
    if (chunk.length === 0) continue;
    if (head.length < DUMP_HEAD_BYTES) {
      head = joined([head, chunk.subarray(0, DUMP_HEAD_BYTES - head.length)]);
      if (head.length === DUMP_HEAD_BYTES) checkDumpHead(head);
    }
    tail = chunk.length >= DUMP_TAIL_BYTES
      ? chunk.subarray(chunk.length - DUMP_TAIL_BYTES)
      : joined([tail, chunk]).slice(-DUMP_TAIL_BYTES);
    const lines: Uint8Array[] = [];
    let at = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, at)) {
      const rest = chunk.subarray(at, end);
      lines.push(begun.length === 0 ? rest : joined([...begun, rest]));
      begun = [];
      at = end + 1;
    }
    if (at < chunk.length) begun.push(chunk.subarray(at));
    if (lines.length > 0) yield lines;
  }
  checkDumpHead(head);
  checkDumpTail(tail);
  if (begun.length > 0) yield [joined(begun)];
}

/**
 * Splits a dump made by `dumpStore`, read as a stream of byte chunks of any
 * size (its COPY blocks end at a line `\.`). Rows are passed on as the bytes
 * they are; only the statements between them are decoded, a whole line at a
 * time, so a character split across two chunks is decoded whole.
 */
export async function* dumpParts(
  chunks: AsyncIterable<Uint8Array>,
  pieceBytes = COPY_PIECE_BYTES,
): AsyncGenerator<DumpPart> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let sql = "";
  /** The COPY block being read, with the rows of its piece so far. */
  let copy: { statement: string; rows: Uint8Array[]; bytes: number; first: boolean } | null = null;
  const piece = (): DumpPart => {
    const part = {
      kind: "copy" as const,
      statement: copy!.statement,
      data: joined(copy!.rows, 10),
      first: copy!.first,
    };
    copy = { ...copy!, rows: [], bytes: 0, first: false };
    return part;
  };
  for await (const lines of dumpLines(chunks)) {
    for (const line of lines) {
      if (copy !== null) {
        if (line.length === 2 && line[0] === 92 && line[1] === 46) { // "\."
          yield piece();
          copy = null;
          continue;
        }
        copy.rows.push(line);
        copy.bytes += line.length + 1;
        if (copy.bytes >= pieceBytes) yield piece();
        continue;
      }
      const text = decoder.decode(line);
      if (!/^COPY .* FROM stdin;$/.test(text)) {
        sql += text + "\n";
        continue;
      }
      if (sql.trim() !== "") yield { kind: "sql", text: sql };
      sql = "";
      copy = { statement: text, rows: [], bytes: 0, first: true };
    }
  }
  if (copy !== null) throw new Error("the backup is cut short inside a table's rows");
  if (sql.trim() !== "") yield { kind: "sql", text: sql };
}
