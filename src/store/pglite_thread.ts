/**
 * The embedded store on a thread of its own (pglite_worker.ts), behind the same
 * Db interface as every driver. Statements reach PGlite in the order they are
 * sent; a transaction holds the others back until it ends (one_connection.ts).
 */
import { openDataDir, unopenableError } from "./data_dir.ts";
import type { Db, Queryable } from "./db.ts";
import { oneConnection } from "./one_connection.ts";
import { type CheckpointPolicy, CHECKPOINTS, keepCheckpointing } from "./pglite_checkpoints.ts";
import type { PgliteAssets } from "./pglite_driver.ts";
import {
  keepVacuuming,
  type MaintenanceDone,
  type VacuumPolicy,
  VACUUMS,
} from "./pglite_vacuum.ts";

type Request =
  | { kind: "open"; path: string; assets?: PgliteAssets; fsync: boolean }
  | { kind: "query"; text: string; params: readonly unknown[] }
  | { kind: "exec"; text: string }
  | { kind: "close" };
export type StoreRequest = Request & { id: number };

export type StoreReply =
  /** `json`: the columns whose values are JSON text, parsed on this side. */
  | { id: number; rows: Record<string, unknown>[]; json?: string[] }
  | { id: number; error: Record<string, unknown> };

function parsedJson(rows: Record<string, unknown>[], json: readonly string[]): unknown[] {
  for (const row of rows) {
    for (const name of json) {
      const text = row[name];
      if (typeof text === "string") row[name] = JSON.parse(text);
    }
  }
  return rows;
}

/** The driver's error again, with its fields (a `code` decides storage faults and conflicts). */
function rebuiltError(fields: Record<string, unknown>): Error {
  const { name, message, ...rest } = fields;
  return Object.assign(new Error(String(message)), { name: String(name) }, rest);
}

export interface PgliteThreadOptions {
  assets?: PgliteAssets;
  /** The worker's module (a single-file build names where it embedded it). */
  workerModule?: string;
  /** Whether a commit reaches the disk before it is acknowledged (pglite_fsync.ts); default off. */
  fsync?: boolean;
  checkpoints?: CheckpointPolicy;
  vacuums?: VacuumPolicy;
  /** Hears of each table vacuumed, frozen or analyzed (the service logs it). */
  onMaintenance?: (done: MaintenanceDone) => void;
}

/**
 * Opens PGlite at `path` (a data directory, or `memory://`) on its own thread.
 * A directory is this process's alone until the store closes (data_dir.ts).
 * The store makes its own checkpoints and vacuums, which PostgreSQL in
 * single-user mode never does by itself.
 */
export async function openPgliteThread(
  path: string,
  options: PgliteThreadOptions = {},
): Promise<Db> {
  const dir = path === "memory://" ? null : await openDataDir(path);
  let db: Db;
  try {
    db = await openOnThread(
      path,
      options.assets,
      options.workerModule ?? new URL("./pglite_worker.ts", import.meta.url).href,
      options.fsync ?? false,
    );
  } catch (error) {
    dir?.release();
    throw dir?.existing ? unopenableError(path, error) : error;
  }
  const checkpointing = keepCheckpointing(db, options.checkpoints ?? CHECKPOINTS);
  const vacuuming = keepVacuuming(db, options.vacuums ?? VACUUMS, options.onMaintenance);
  return {
    ...db,
    async close() {
      checkpointing.stop();
      vacuuming.stop();
      try {
        await db.close();
      } finally {
        dir?.release();
      }
    },
  };
}

async function openOnThread(
  path: string,
  assets: PgliteAssets | undefined,
  workerModule: string,
  fsync: boolean,
): Promise<Db> {
  const worker = new Worker(workerModule, {
    type: "module",
  });
  let next = 0;
  const waiting = new Map<
    number,
    { resolve: (rows: unknown[]) => void; reject: (e: Error) => void }
  >();
  worker.onmessage = ({ data: reply }: MessageEvent<StoreReply>) => {
    const pending = waiting.get(reply.id);
    waiting.delete(reply.id);
    if ("error" in reply) pending?.reject(rebuiltError(reply.error));
    else pending?.resolve(reply.json ? parsedJson(reply.rows, reply.json) : reply.rows);
  };
  // A worker that cannot start (or dies) fails what waits on it, never hangs it.
  let broken: Error | null = null;
  worker.onerror = (event: ErrorEvent) => {
    event.preventDefault();
    broken = new Error(`the embedded store's thread failed: ${event.message}`);
    for (const pending of waiting.values()) pending.reject(broken);
    waiting.clear();
  };
  const send = (request: Request) =>
    new Promise<unknown[]>((resolve, reject) => {
      if (broken !== null) return reject(broken);
      const id = next++;
      waiting.set(id, { resolve, reject });
      worker.postMessage({ ...request, id });
    });

  const direct: Queryable = {
    query: async <T>(text: string, params: readonly unknown[] = []) =>
      await send({ kind: "query", text, params }) as T[],
    exec: async (text: string) => void await send({ kind: "exec", text }),
  };
  try {
    await send({ kind: "open", path, fsync, ...(assets === undefined ? {} : { assets }) });
  } catch (error) {
    worker.terminate();
    throw error;
  }
  return oneConnection(direct, async () => {
    await send({ kind: "close" });
    worker.terminate();
  });
}
