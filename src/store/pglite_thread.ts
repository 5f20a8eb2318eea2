/**
 * The embedded store on a thread of its own (pglite_worker.ts), behind the same
 * Db interface as every driver. Statements reach PGlite in the order they are
 * sent; a transaction holds the others back until it ends (one_connection.ts).
 */
import { statfsSync } from "node:fs";
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
import { isDiskFull, isStorageFault, rethrowStorageFault } from "./storage_fault.ts";

type Request =
  | { kind: "open"; path: string; assets?: PgliteAssets; fsync: boolean }
  | { kind: "query"; text: string; params: readonly unknown[] }
  | { kind: "exec"; text: string }
  | { kind: "close" };
export type StoreRequest = Request & { id: number };

export type StoreReply =
  /** `json`: the columns whose values are JSON text, parsed on this side. */
  | { id: number; rows: Record<string, unknown>[]; json?: string[] }
  /** `fatal`: PostgreSQL stopped (a PANIC); the worker's PGlite must not be used again. */
  | { id: number; error: Record<string, unknown>; fatal?: boolean };

/**
 * What the operator hears of the store's directory: a statement refused for
 * want of space (at most once every 10 s), PostgreSQL stopped and being
 * started again on the directory, started again.
 */
export type StoreEvent =
  | { kind: "disk_full"; path: string }
  | { kind: "restarting"; path: string; why: string }
  | { kind: "reopened"; path: string; ms: number };

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
  /** Hears of a full disk and of restarts (the service logs them, naming the directory). */
  onEvent?: (event: StoreEvent) => void;
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
      options.onEvent ?? (() => {}),
    );
  } catch (error) {
    dir?.release();
    throw dir?.existing ? unopenableError(path, error) : error;
  }
  const checkpointing = keepCheckpointing(db, options.checkpoints ?? CHECKPOINTS);
  const vacuuming = keepVacuuming(db, options.vacuums ?? VACUUMS, options.onMaintenance);
  return {
    ...db,
    // The worker flushes after each statement that committed unsynced.
    flushesUnsyncedCommits: true,
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

/**
 * PostgreSQL stopped under what it was running (a PANIC, an aborted WASM
 * instance, a failed thread): a storage fault for every statement it took
 * down, 57P02 (crash shutdown) where the error names no SQLSTATE of its own.
 * Whether such a statement committed is unknown, as with a lost connection.
 */
function crashed(error: Error): Error {
  return isStorageFault(error) ? error : Object.assign(error, { code: "57P02" });
}

/** One worker and the requests it has not answered. */
interface StoreWorker {
  send(request: Request): Promise<unknown[]>;
  /** Stops the worker, failing what waits on it with `why`. */
  terminate(why: Error): void;
}

/**
 * Starts the store's worker. `lost` hears once that the worker's PGlite can no
 * longer be trusted: PostgreSQL reported a PANIC (a write-ahead log it could
 * not write, as on a full disk: the next statement would spin for ever), or
 * the worker itself failed.
 */
function startWorker(workerModule: string, lost: (why: Error) => void): StoreWorker {
  const worker = new Worker(workerModule, { type: "module" });
  let next = 0;
  const waiting = new Map<
    number,
    { resolve: (rows: unknown[]) => void; reject: (e: Error) => void }
  >();
  // A worker that cannot start (or dies) fails what waits on it, never hangs it.
  let broken: Error | null = null;
  const terminate = (why: Error) => {
    broken ??= why;
    worker.terminate();
    for (const pending of waiting.values()) pending.reject(why);
    waiting.clear();
  };
  worker.onmessage = ({ data: reply }: MessageEvent<StoreReply>) => {
    const pending = waiting.get(reply.id);
    waiting.delete(reply.id);
    if ("error" in reply) {
      const rebuilt = rebuiltError(reply.error);
      const error = reply.fatal === true ? crashed(rebuilt) : rebuilt;
      pending?.reject(error);
      if (reply.fatal === true && broken === null) lost(error);
    } else pending?.resolve(reply.json ? parsedJson(reply.rows, reply.json) : reply.rows);
  };
  worker.onerror = (event: ErrorEvent) => {
    event.preventDefault();
    const error = crashed(new Error(`the embedded store's thread failed: ${event.message}`));
    if (broken === null) lost(error);
    terminate(error);
  };
  return {
    send: (request) =>
      new Promise<unknown[]>((resolve, reject) => {
        if (broken !== null) return reject(broken);
        const id = next++;
        waiting.set(id, { resolve, reject });
        worker.postMessage({ ...request, id });
      }),
    terminate,
  };
}

/** What a reopened store needs free at least: one segment of write-ahead log. */
const ROOM_TO_REOPEN = 16 * 1024 * 1024;

/** Whether the file system of `path` has room to reopen; true where that cannot be told. */
function hasRoom(path: string): boolean {
  try {
    const fs = statfsSync(path);
    return fs.bavail * fs.bsize >= ROOM_TO_REOPEN;
  } catch {
    return true;
  }
}

const REOPEN_CHECK_MS = 100;
const DISK_FULL_EVERY_MS = 10_000;
const REOPEN_BACKOFF_MAX_MS = 1_000;

/** A statement refused while the store reopens: the fault that closed it, as a storage fault. */
function refusal(why: Error): Error {
  const code = (why as { code?: unknown }).code;
  return Object.assign(new Error("the embedded store is reopening"), {
    code: code === "53100" ? code : "57P03",
  });
}

async function openOnThread(
  path: string,
  assets: PgliteAssets | undefined,
  workerModule: string,
  fsync: boolean,
  onEvent: (event: StoreEvent) => void,
): Promise<Db> {
  const open: Request = { kind: "open", path, fsync, ...(assets === undefined ? {} : { assets }) };
  /** The worker serving statements; null while the store reopens. */
  let current: StoreWorker | null = null;
  /** Why the store is reopening. */
  let closedBy: Error | null = null;
  /** Bumped at every reopen: a transaction begun on an earlier PGlite is lost. */
  let generation = 0;
  let closing = false;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  /**
   * PostgreSQL stopped as a server would after a PANIC: the store starts it
   * again on the same directory (crash recovery, as after a `kill -9`), once
   * the file system has room, and meanwhile answers every statement with the
   * fault at once.
   */
  let opened = false;
  const lost = (why: Error) => {
    if (!opened) return;
    current?.terminate(why);
    current = null;
    closedBy = why;
    generation++;
    if (isDiskFull(why)) full(why);
    // A store in memory has nothing to start again from: it stays closed.
    if (path === "memory://") return;
    onEvent({ kind: "restarting", path, why: why.message });
    void reopen(performance.now());
  };
  const reopen = async (since: number) => {
    for (let backoff = REOPEN_CHECK_MS; !closing;) {
      if (!hasRoom(path)) {
        await sleep(REOPEN_CHECK_MS);
        continue;
      }
      const worker = startWorker(workerModule, lost);
      try {
        await worker.send(open);
      } catch (error) {
        worker.terminate(error as Error);
        await sleep(backoff);
        backoff = Math.min(backoff * 2, REOPEN_BACKOFF_MAX_MS);
        continue;
      }
      if (closing) return worker.terminate(new Error("the embedded store is closed"));
      current = worker;
      closedBy = null;
      onEvent({ kind: "reopened", path, ms: Math.round(performance.now() - since) });
      return;
    }
  };

  let fullHeardAt = -Infinity;
  const full = (error: unknown) => {
    if (!isDiskFull(error) || performance.now() - fullHeardAt < DISK_FULL_EVERY_MS) return;
    fullHeardAt = performance.now();
    onEvent({ kind: "disk_full", path });
  };
  const failed = (error: unknown): never => {
    full(error);
    return rethrowStorageFault(error);
  };
  const send = (request: Request) =>
    current === null ? Promise.reject(refusal(closedBy!)) : current.send(request);
  /** The generation a transaction began in, while one is open (one_connection.ts runs one at a time). */
  let transactionOf: number | null = null;
  /**
   * A transaction begun before a reopen is lost with its PGlite: its later
   * statements fail (they would otherwise commit one by one), its ROLLBACK
   * has nothing left to do.
   */
  const lostTransaction = (text: string): "rolled back" | Error | null => {
    const ends = text === "COMMIT" || text === "ROLLBACK";
    const lostOne = transactionOf !== null && transactionOf !== generation;
    if (text === "BEGIN") transactionOf = generation;
    else if (ends) transactionOf = null;
    if (!lostOne) return null;
    return text === "ROLLBACK" ? "rolled back" : refusal(closedBy ?? new Error("reopened"));
  };
  const direct: Queryable = {
    query: async <T>(text: string, params: readonly unknown[] = []) => {
      const lostOne = lostTransaction(text);
      if (lostOne === "rolled back") return [];
      if (lostOne !== null) rethrowStorageFault(lostOne);
      return await send({ kind: "query", text, params }).catch(failed) as T[];
    },
    exec: async (text: string) => void await send({ kind: "exec", text }).catch(failed),
  };
  const first = startWorker(workerModule, lost);
  try {
    await first.send(open);
  } catch (error) {
    first.terminate(error as Error);
    throw error;
  }
  current = first;
  opened = true;
  return oneConnection(direct, async () => {
    closing = true;
    if (current === null) return;
    await current.send({ kind: "close" });
    current.terminate(new Error("the embedded store is closed"));
  });
}
