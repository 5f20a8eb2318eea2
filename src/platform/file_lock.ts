/**
 * An exclusive advisory lock on a file (flock(2)) that the operating system
 * releases when the process ends, however it ends. Deno offers one
 * (`FsFile.tryLock`); Bun 1 offers none, and neither does `node:fs`.
 */
export interface FileLock {
  /** Releases the lock (and closes the file). */
  release(): void;
}

interface DenoFile {
  tryLock(exclusive: boolean): Promise<boolean>;
  close(): void;
}
interface DenoLike {
  open(path: string, options: { read: boolean; write: boolean; create: boolean }): Promise<
    DenoFile
  >;
}

/**
 * Locks `path` (made if missing) for this process: the lock, null when
 * another process holds it, undefined when this runtime cannot lock files.
 */
export async function tryLockFile(path: string): Promise<FileLock | null | undefined> {
  const deno = (globalThis as { Deno?: DenoLike }).Deno;
  if (deno === undefined) return undefined;
  const file = await deno.open(path, { read: true, write: true, create: true });
  if (typeof file.tryLock !== "function") {
    file.close();
    return undefined;
  }
  if (await file.tryLock(true)) return { release: () => file.close() };
  file.close();
  return null;
}
