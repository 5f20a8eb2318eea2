/**
 * The runtime's own `stat` of a path, where it has one cheaper than
 * `node:fs`'s: Deno's `node:fs` builds a whole `Stats` object (four dates
 * among them) around the same system call, 15–25 µs a call on this machine
 * against 2 µs for `Deno.statSync`. Null elsewhere: Bun's `node:fs` stat
 * takes under half a microsecond.
 */
export interface NativeStat {
  size: number;
  dev: number;
  /** Null where the platform has no inode numbers. */
  ino: number | null;
}

export const nativeStat: ((path: string) => NativeStat) | null =
  (globalThis as { Deno?: { statSync(path: string): NativeStat } }).Deno?.statSync ?? null;
