/**
 * `backup` and `restore` of the embedded store's directory (backup.ts says
 * what a backup is), with the service stopped: each takes the directory's
 * lock (data_dir.ts), so while a service holds it they refuse in one line.
 * Online, through the running service, a backup would hold the store's one
 * connection, and so every turn, for as long as the copy takes.
 *
 * A backup is written beside its file and renamed over it once whole. A
 * restore loads into a new directory beside the store's, then swaps it in by
 * renaming: the store is the old one or the restored one, never half of each.
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  writeSync,
} from "node:fs";
import { open, rm } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import process from "node:process";
import type { PGlite } from "@electric-sql/pglite";
import {
  checkDumpHead,
  checkDumpTail,
  COPY_PIECE_BYTES,
  DUMP_HEAD_BYTES,
  DUMP_TAIL_BYTES,
  type DumpPart,
  dumpParts,
  dumpStore,
} from "./backup.ts";
import { DataDirError, LOCK_FILE, lockDataDir } from "./data_dir.ts";
import type { Migration } from "./migrations.ts";
import { createPglite, type PgliteAssets } from "./pglite_driver.ts";
import { syncDirectory } from "./pglite_fsync.ts";
import { isNewStore } from "./pglite_template.ts";

/** Settings that make COPY's text the same whatever the defaults: dates in ISO, at UTC. */
const DUMP_SETTINGS = "SET DateStyle = ISO; SET TimeZone = 'UTC'; SET IntervalStyle = postgres; " +
  "SET extra_float_digits = 3";

interface Options {
  migrations: readonly Migration[];
  assets?: PgliteAssets;
}

async function copyOut(pg: PGlite, table: string, columns: readonly string[]) {
  const q = (name: string) => `"${name.replaceAll('"', '""')}"`;
  const { blob } = await pg.query(
    `COPY public.${q(table)} (${columns.map(q).join(", ")}) TO '/dev/blob'`,
  );
  // An empty table writes no blob at all.
  return blob === undefined ? new Uint8Array(0) : new Uint8Array(await blob.arrayBuffer());
}

/** Writes the store at `dir` to `file`; returns how many bytes. */
export async function backupStore(
  dir: string,
  file: string,
  o: Options & { version: string; now: Date },
): Promise<{ bytes: number }> {
  if (!existsSync(dir) || isNewStore(dir)) {
    throw new DataDirError(`data directory "${dir}" holds no store to back up`);
  }
  const lock = await lockDataDir(dir);
  const partial = `${file}.partial-${process.pid}`;
  let pg: PGlite | undefined;
  let fd: number | undefined;
  try {
    pg = await createPglite(dir, o.assets);
    await pg.exec(DUMP_SETTINGS);
    const store = pg;
    fd = openSync(partial, "w", 0o600);
    let bytes = 0;
    const encoder = new TextEncoder();
    for await (
      const piece of dumpStore(
        {
          query: async <T>(text: string) => (await store.query<T>(text)).rows,
          copyOut: (table, columns) => copyOut(store, table, columns),
        },
        o.migrations,
        { version: o.version, at: o.now },
      )
    ) {
      const data = typeof piece === "string" ? encoder.encode(piece) : piece;
      for (let at = 0; at < data.length;) at += writeSync(fd, data, at);
      bytes += data.length;
    }
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(partial, file);
    return { bytes };
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    await rm(partial, { force: true });
    throw error;
  } finally {
    await pg?.close();
    lock.release();
  }
}

/** How many bytes `restore` reads from its file at a time. */
export const READ_CHUNK_BYTES = 64 * 1024;

/** How a restore reads its file: chunk sizes (tests make them small). */
export interface RestoreReading {
  /** Bytes read from the file at a time (`READ_CHUNK_BYTES`). */
  readBytes?: number;
  /** About how many bytes of a table's rows one COPY statement loads (`COPY_PIECE_BYTES`). */
  pieceBytes?: number;
}

/**
 * The bytes of `file`, `size` at a time. Each chunk is a new array, since the
 * lines made of it may be kept while the next one is read.
 */
async function* fileChunks(file: string, size: number): AsyncGenerator<Uint8Array> {
  const handle = await open(file, "r");
  try {
    for (;;) {
      const chunk = new Uint8Array(size);
      const { bytesRead } = await handle.read(chunk, 0, size, null);
      if (bytesRead === 0) return;
      yield chunk.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}

/**
 * Refuses at once a file that is not a whole backup, by its first and last
 * bytes, before any directory is touched; the rest is checked as it loads.
 */
async function checkBackupFile(file: string): Promise<void> {
  const handle = await open(file, "r");
  try {
    const { size } = await handle.stat();
    const head = new Uint8Array(Math.min(DUMP_HEAD_BYTES, size));
    await handle.read(head, 0, head.length, 0);
    checkDumpHead(head);
    const tail = new Uint8Array(Math.min(DUMP_TAIL_BYTES, size));
    await handle.read(tail, 0, tail.length, size - tail.length);
    checkDumpTail(tail);
  } finally {
    await handle.close();
  }
}

/** Whether `dir` holds anything but a released lock. */
function holdsSomething(dir: string): boolean {
  return existsSync(dir) && readdirSync(dir).some((name) => name !== LOCK_FILE);
}

/**
 * Loads the backup `file` into the store's directory `dir`: a directory that
 * holds anything is replaced only with `force`. Returns how many tables. The
 * file is read as a stream, a table's rows loaded a piece at a time, so memory
 * does not grow with the backup (only with its longest row).
 */
export async function restoreStore(
  file: string,
  dir: string,
  o: Options & { force: boolean } & RestoreReading,
): Promise<{ tables: number }> {
  await checkBackupFile(file);
  const parts = dumpParts(
    fileChunks(file, o.readBytes ?? READ_CHUNK_BYTES),
    o.pieceBytes ?? COPY_PIECE_BYTES,
  );
  const target = resolve(dir);
  const existing = existsSync(target) ? await lockDataDir(target) : null;
  const fresh = join(dirname(target), `.${basename(target)}.restoring-${process.pid}`);
  const old = join(dirname(target), `.${basename(target)}.replaced-${process.pid}`);
  let freshLock: Awaited<ReturnType<typeof lockDataDir>> | null = null;
  let replaced = false;
  try {
    if (existing !== null && holdsSomething(target) && !o.force) {
      throw new DataDirError(
        `data directory "${dir}" is not empty: restore with --force to replace what it holds`,
      );
    }
    await rm(fresh, { recursive: true, force: true });
    mkdirSync(fresh, { recursive: true, mode: 0o700 });
    freshLock = await lockDataDir(fresh);
    const tables = await load(fresh, parts, o);
    // Whole and synced: released (a lock by pid would name this process in it), then swapped in.
    freshLock.release();
    freshLock = null;
    if (existing !== null) renameSync(target, old);
    try {
      renameSync(fresh, target);
    } catch (error) {
      if (existing !== null) renameSync(old, target);
      throw error;
    }
    replaced = existing !== null;
    syncDirectory(dirname(target));
    return { tables };
  } catch (error) {
    await rm(fresh, { recursive: true, force: true });
    throw error;
  } finally {
    freshLock?.release();
    existing?.release();
    if (replaced) await rm(old, { recursive: true, force: true });
  }
}

/**
 * Replays the backup's statements and rows into a new store at `path`, as
 * they are read: a table's rows go in by as many COPY statements as it has
 * pieces, all in the backup's one transaction.
 */
async function load(path: string, parts: AsyncIterable<DumpPart>, o: Options): Promise<number> {
  const pg = await createPglite(path, o.assets, { fsync: true });
  try {
    let tables = 0;
    for await (const part of parts) {
      if (part.kind === "sql") {
        await pg.exec(part.text);
      } else {
        const statement = part.statement.replace(/FROM stdin;$/, "FROM '/dev/blob'");
        await pg.query(statement, [], { blob: new Blob([part.data as Uint8Array<ArrayBuffer>]) });
        if (part.first) tables++;
      }
    }
    const [{ newest }] = (await pg.query<{ newest: number }>(
      "SELECT max(version) AS newest FROM schema_migrations",
    )).rows;
    const known = Math.max(...o.migrations.map((m) => m.version));
    if (newest > known) {
      throw new Error(
        `the backup has migration ${newest}, which this version does not know: ` +
          "restore it with the version that made it, or a later one",
      );
    }
    return tables;
  } finally {
    await pg.close();
  }
}
