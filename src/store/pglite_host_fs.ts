/**
 * The embedded store's data directory on the host's file system: PGlite's
 * NodeFS (Emscripten's NODEFS over `node:fs`), with a relation's size read
 * the cheap way. PostgreSQL sizes a relation by seeking to its end, a few
 * times a turn, and NODEFS answers each such seek with `fstatSync` on the
 * file's descriptor, which costs 15–25 µs under Deno (platform/native_stat.ts).
 * Where the runtime has a cheaper stat, the seek stats the file's path
 * instead, and takes that size only when the path still names the very file
 * the descriptor holds (same device and inode: an open file's inode is never
 * reused); otherwise it asks the descriptor as before. Nothing is cached:
 * every size is the file's at the moment of the seek.
 */
import { fstatSync } from "node:fs";
import type { PGlite } from "@electric-sql/pglite";
import { NodeFS } from "@electric-sql/pglite/nodefs";
import { type NativeStat, nativeStat } from "../platform/native_stat.ts";

/** Emscripten's file streams, as far as a seek or a sync needs them. */
export interface Stream {
  /** The host file descriptor NODEFS opened (directories have none). */
  nfd?: number;
  node: { mode: number };
  /** The device and inode behind `nfd`, read at its first seek to the end. */
  hostFile?: { dev: number; ino: number };
}

export interface EmscriptenModule {
  NODEFS: {
    stream_ops: {
      fsync?: (stream: Stream) => number;
      llseek: (stream: Stream, offset: number, whence: number) => number;
    };
    realPath(node: unknown): string;
  };
  FS: { ErrnoError: new (errno: number) => Error; isFile(mode: number): boolean };
}

const SEEK_END = 2;
/** Emscripten's EINVAL. */
const EINVAL = 28;

/**
 * Makes NODEFS's seeks to a file's end read its size by path where `stat`
 * (the runtime's cheaper stat; none: nothing changes) shows the same file.
 */
export function sizeSeeksByPath(
  mod: EmscriptenModule,
  stat: ((path: string) => NativeStat) | null = nativeStat,
): void {
  if (stat === null) return;
  const ops = mod.NODEFS.stream_ops;
  const seek = ops.llseek;
  const sizeByPath = (stream: Stream): number | null => {
    if (stream.hostFile === undefined) {
      const { dev, ino } = fstatSync(stream.nfd!);
      stream.hostFile = { dev, ino };
    }
    let found: NativeStat;
    try {
      found = stat(mod.NODEFS.realPath(stream.node));
    } catch {
      return null;
    }
    const same = found.ino !== null && found.ino === stream.hostFile.ino &&
      found.dev === stream.hostFile.dev;
    return same ? found.size : null;
  };
  ops.llseek = (stream, offset, whence) => {
    if (whence !== SEEK_END || stream.nfd === undefined || !mod.FS.isFile(stream.node.mode)) {
      return seek(stream, offset, whence);
    }
    const size = sizeByPath(stream);
    if (size === null) return seek(stream, offset, whence);
    const position = offset + size;
    if (position < 0) throw new mod.FS.ErrnoError(EINVAL);
    return position;
  };
}

type EmscriptenOpts = Awaited<ReturnType<NodeFS["init"]>>["emscriptenOpts"];

/** `opts` with `step` run on the module after the steps it had, before PostgreSQL starts. */
export function withPreRun(
  opts: EmscriptenOpts,
  step: (mod: EmscriptenModule) => void,
): EmscriptenOpts {
  const preRun = [opts.preRun ?? []].flat() as ((mod: unknown) => void)[];
  return { ...opts, preRun: [...preRun, step as (mod: unknown) => void] };
}

/** A data directory on the host's file system, its relations sized by path. */
export class HostNodeFS extends NodeFS {
  override async init(
    pg: PGlite,
    opts: Parameters<NodeFS["init"]>[1],
  ): ReturnType<NodeFS["init"]> {
    const { emscriptenOpts } = await super.init(pg, opts);
    return { emscriptenOpts: withPreRun(emscriptenOpts, (mod) => sizeSeeksByPath(mod)) };
  }
}
