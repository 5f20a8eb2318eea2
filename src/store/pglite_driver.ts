import { PGlite, type Transaction } from "@electric-sql/pglite";
import type { Db, Queryable } from "./db.ts";

/**
 * PGlite's WASM modules and file-system bundle, for a build where they cannot be
 * read from node_modules (a single-file binary embeds them and passes them in).
 */
export interface PgliteAssets {
  pgliteWasmModule: WebAssembly.Module;
  initdbWasmModule: WebAssembly.Module;
  fsBundle: Blob;
}

/**
 * PostgreSQL's memory settings inside PGlite, sized for one small service
 * rather than a database server: the defaults (128 MB of shared buffers)
 * cost more resident memory than the rest of the service together.
 */
const MEMORY_SETTINGS = [
  "shared_buffers=8MB",
  "wal_buffers=1MB",
  "work_mem=2MB",
  "maintenance_work_mem=8MB",
  "temp_buffers=2MB",
];

/** PostgreSQL's `json` and `jsonb` type ids. */
export const JSON_TYPES: ReadonlySet<number> = new Set([114, 3802]);

/**
 * PGlite at `path` (a data directory, or `memory://`), as the store opens it.
 * With `jsonAsText`, `json` and `jsonb` values come back as their text.
 */
export async function createPglite(
  path: string,
  assets?: PgliteAssets,
  options: { jsonAsText?: boolean } = {},
): Promise<PGlite> {
  const asText = (text: string) => text;
  return await PGlite.create({
    ...(path === "memory://" ? {} : { dataDir: path }),
    ...assets,
    startParams: [...PGlite.defaultStartParams, ...MEMORY_SETTINGS.flatMap((s) => ["-c", s])],
    ...(options.jsonAsText ? { parsers: { 114: asText, 3802: asText } } : {}),
  });
}

/** Embedded PostgreSQL (WASM). `path` is a data directory, or `memory://` to keep nothing. */
export async function openPglite(path: string, assets?: PgliteAssets): Promise<Db> {
  const pg = await createPglite(path, assets);
  const wrap = (q: PGlite | Transaction): Queryable => ({
    async query<T>(text: string, params: readonly unknown[] = []) {
      return (await q.query<T>(text, params as unknown[])).rows;
    },
    async exec(text: string) {
      await q.exec(text);
    },
  });
  return {
    driver: "pglite",
    ...wrap(pg),
    transaction: (fn) => pg.transaction((tx) => fn(wrap(tx))),
    close: () => pg.close(),
  };
}
