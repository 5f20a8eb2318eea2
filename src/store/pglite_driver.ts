import { parse, PGlite, protocol, type Results } from "@electric-sql/pglite";
import type { Db } from "./db.ts";
import { oneConnection } from "./one_connection.ts";
import { durabilityParams, SyncedNodeFS } from "./pglite_fsync.ts";
import { HostNodeFS } from "./pglite_host_fs.ts";
import { fromTemplate } from "./pglite_template.ts";

/**
 * PGlite's WASM modules and file-system bundle, for a build where they cannot be
 * read from node_modules (a single-file binary embeds them and passes them in).
 */
export interface PgliteAssets {
  pgliteWasmModule: WebAssembly.Module;
  initdbWasmModule: WebAssembly.Module;
  fsBundle: Blob;
  /** The template data directory's file (pglite_template.ts). */
  dataDirTemplate?: Blob;
}

/**
 * PostgreSQL's settings inside PGlite, sized for one small service rather
 * than a database server: the defaults (128 MB of shared buffers, 1 GB of WAL
 * kept for reuse) cost more memory and disk than the rest of the service.
 */
const SETTINGS = [
  "shared_buffers=8MB",
  "wal_buffers=1MB",
  "work_mem=2MB",
  "maintenance_work_mem=8MB",
  "temp_buffers=2MB",
  // What a checkpoint keeps of the WAL for reuse (pglite_checkpoints.ts makes them).
  "max_wal_size=64MB",
  "min_wal_size=32MB",
];

/** PostgreSQL's command line in PGlite, as the store starts it. */
export const START_PARAMS: readonly string[] = [
  ...PGlite.defaultStartParams,
  ...SETTINGS.flatMap((s) => ["-c", s]),
];

/** PostgreSQL's `json` and `jsonb` type ids. */
export const JSON_TYPES: ReadonlySet<number> = new Set([114, 3802]);

/**
 * PGlite at `path` (a data directory, or `memory://`), as the store opens it.
 * A new store starts from the template data directory, never by initdb.
 * With `jsonAsText`, `json` and `jsonb` values come back as their text; with
 * `fsync`, a directory's commits reach the disk before they are acknowledged
 * (pglite_fsync.ts).
 */
export async function createPglite(
  path: string,
  assets?: PgliteAssets,
  options: { jsonAsText?: boolean; fsync?: boolean } = {},
): Promise<PGlite> {
  const asText = (text: string) => text;
  const { dataDirTemplate, ...modules } = assets ?? {};
  const fsync = options.fsync === true && path !== "memory://";
  return await PGlite.create({
    ...(path === "memory://" ? {} : { fs: fsync ? new SyncedNodeFS(path) : new HostNodeFS(path) }),
    ...await fromTemplate(path, dataDirTemplate),
    ...modules,
    startParams: durabilityParams(START_PARAMS, fsync),
    ...(options.jsonAsText ? { parsers: { 114: asText, 3802: asText } } : {}),
  });
}

/**
 * How many query texts keep a prepared statement. Every text is a constant of
 * a query function (a few dozen); past this, a text is parsed each time.
 */
const PREPARED_LIMIT = 256;

/** Statement names are unique per process: a connection may be handed to more than one cache (tests). */
let statementsNamed = 0;

type Serializers = Record<number, ((value: unknown) => string) | undefined>;

function joined(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((size, part) => size + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/**
 * PGlite's `query` with each text parsed and planned once, as postgres.js does
 * on a server. PGlite's own `query` sends Parse, Describe, Bind, Describe and
 * Execute as five calls into WASM and plans the statement every time: most of
 * a short statement's cost (a token lookup, 500 µs against 130 µs prepared).
 * Here a known text is one call: Bind, Describe, Execute, Sync on its named
 * statement. PostgreSQL itself re-plans a statement whose tables change.
 */
export function preparedQueries(
  pg: PGlite,
  limit: number = PREPARED_LIMIT,
): (text: string, params?: readonly unknown[]) => Promise<Results<Record<string, unknown>>> {
  const statements = new Map<string, { name: string; paramTypes: number[] }>();
  const { serialize } = protocol;
  const run = (messages: Uint8Array[]) =>
    pg.execProtocolStream(joined([...messages, serialize.sync()]), { syncToFs: false });
  return (text, params = []) =>
    pg.runExclusive(async () => {
      let statement = statements.get(text);
      if (statement === undefined) {
        const name = statements.size < limit ? `switchyard_${statementsNamed++}` : "";
        const described = await run([
          serialize.parse({ name, text }),
          serialize.describe({ type: "S", name }),
        ]);
        statement = { name, paramTypes: parse.parseDescribeStatementResults(described) };
        if (name !== "") statements.set(text, statement);
      }
      const serializers = pg.serializers as Serializers;
      const values = params.map((value, i) => {
        if (value === null || value === undefined) return null;
        const serializer = serializers[statement.paramTypes[i]];
        return serializer ? serializer(value) : String(value);
      });
      const messages = await run([
        serialize.bind({ statement: statement.name, values }),
        serialize.describe({ type: "P" }),
        serialize.execute({}),
      ]);
      await pg.syncToFs();
      return parse.parseResults(messages, pg.parsers)[0] as Results<Record<string, unknown>>;
    });
}

/** Embedded PostgreSQL (WASM) on this thread. `path` is a data directory, or `memory://` to keep nothing. */
export async function openPglite(path: string, assets?: PgliteAssets): Promise<Db> {
  const pg = await createPglite(path, assets);
  const query = preparedQueries(pg);
  return oneConnection({
    query: async <T>(text: string, params?: readonly unknown[]) =>
      (await query(text, params)).rows as T[],
    exec: async (text: string) => void await pg.exec(text),
  }, () => pg.close());
}
