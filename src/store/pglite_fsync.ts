/**
 * PGlite starts PostgreSQL with `-F` (fsync off), and even without it a sync
 * would reach nothing: its file system (Emscripten's NODEFS over `node:fs`)
 * has no `fsync` of its own, so PostgreSQL's calls return at once. A write is
 * then in the operating system's cache: it survives the process, not the
 * machine. With fsync chosen, the store runs PostgreSQL with fsync on, WAL
 * synced by `fsync(2)` (the one sync call NODEFS routes: `fdatasync` is a
 * no-op there), and gives NODEFS the `fsync` it lacks.
 */
import { closeSync, fsyncSync, openSync } from "node:fs";
import type { PGlite } from "@electric-sql/pglite";
import type { NodeFS } from "@electric-sql/pglite/nodefs";
import { type EmscriptenModule, HostNodeFS, withPreRun } from "./pglite_host_fs.ts";

/** PostgreSQL's settings for each choice; PGlite's own start parameters carry `-F`. */
export function durabilityParams(params: readonly string[], fsync: boolean): string[] {
  if (!fsync) return [...params];
  return [
    ...params.filter((p) => p !== "-F"),
    ...["fsync=on", "synchronous_commit=on", "wal_sync_method=fsync", "full_page_writes=on"]
      .flatMap((s) => ["-c", s]),
  ];
}

/**
 * A directory's entries (a new WAL segment's name) reach the disk by syncing
 * the directory, which NODEFS opens without a host descriptor. A failure is
 * ignored, as PostgreSQL ignores it where a system cannot sync directories.
 */
export function syncDirectory(path: string): void {
  try {
    const fd = openSync(path, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch { /* not every platform can */ }
}

/** Emscripten's EIO. */
const EIO = 29;

/** A data directory on the host's file system whose syncs reach the disk. */
export class SyncedNodeFS extends HostNodeFS {
  /** `onSync` hears of each sync (tests). */
  constructor(dataDir: string, private readonly onSync: () => void = () => {}) {
    super(dataDir);
  }

  override async init(
    pg: PGlite,
    opts: Parameters<NodeFS["init"]>[1],
  ): ReturnType<NodeFS["init"]> {
    const { emscriptenOpts } = await super.init(pg, opts);
    const onSync = this.onSync;
    const synced = (mod: EmscriptenModule) => {
      mod.NODEFS.stream_ops.fsync = (stream) => {
        onSync();
        if (stream.nfd === undefined) return syncDirectory(mod.NODEFS.realPath(stream.node)), 0;
        try {
          fsyncSync(stream.nfd);
          return 0;
        } catch {
          // PostgreSQL treats a failed sync as a PANIC, which is what it should be.
          throw new mod.FS.ErrnoError(EIO);
        }
      };
    };
    return { emscriptenOpts: withPreRun(emscriptenOpts, synced) };
  }
}
