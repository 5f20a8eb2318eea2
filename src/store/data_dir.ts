/**
 * One process per embedded store's directory: two PGlite instances on one
 * directory corrupt it, and PostgreSQL's own `postmaster.pid` cannot tell
 * them apart (every PGlite reports the same process id from inside WASM).
 *
 * The lock is the file `switchyard.lock`, naming its holder (process id,
 * host, since when) for the error a second process prints. No lock that dies
 * with the process is offered by both runtimes: Deno has flock(2), which is
 * used where it exists; Bun 1 has none. There the lock file itself is the
 * lock, made exclusively (whole, by a hard link, or not at all), and one left
 * by a crash is told by its holder: a process id that no longer runs, or on
 * Linux one that runs with another start time since boot (a reused id, or
 * another boot). Where that cannot be checked (another host sharing the
 * directory; Deno may neither read /proc nor signal without --allow-run), the
 * error says how to release it by hand.
 */
import {
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import process from "node:process";
import template from "./pglite_template/manifest.json" with { type: "json" };
import { isNewStore } from "./pglite_template.ts";
import { tryLockFile } from "../platform/file_lock.ts";

/** The embedded store's directory cannot be used, and what to do about it. */
export class DataDirError extends Error {
  override readonly name = "DataDirError";
}

export const LOCK_FILE = "switchyard.lock";

interface Holder {
  pid: number;
  host: string;
  /** How it holds the directory: the runtime's file lock, or the lock file alone. */
  lock: "flock" | "pid";
  /** Linux: boot id and start time in clock ticks, which a reused process id does not share. */
  started: string | null;
  since: string;
}

function bootId(): string {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
  } catch {
    return "";
  }
}

/** Linux's start time of `pid` (field 22 of /proc/<pid>/stat), or null where there is none. */
function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) is in parentheses and may hold spaces; fields 3… follow it.
    return `${bootId()}:${stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]}`;
  } catch {
    return null;
  }
}

/**
 * Whether `holder` still runs: "unknown" where this process cannot tell
 * (another host; Deno without --allow-run or --allow-all may neither read
 * /proc nor signal).
 */
function holderState(holder: Holder): "alive" | "gone" | "unknown" {
  if (holder.host !== hostname()) return "unknown";
  if (holder.started !== null) {
    const start = processStart(holder.pid);
    if (start !== null) return start === holder.started ? "alive" : "gone";
  }
  try {
    process.kill(holder.pid, 0);
    return holder.started === null ? "alive" : "unknown";
  } catch (error) {
    const code = (error as { code?: string }).code;
    return code === "ESRCH" ? "gone" : code === "EPERM" ? "alive" : "unknown";
  }
}

/** The holder a lock file names; null for an empty or unreadable one, which no holder writes. */
function parseHolder(text: string): Holder | null {
  try {
    const holder = JSON.parse(text) as Holder;
    return Number.isInteger(holder.pid) && typeof holder.host === "string" ? holder : null;
  } catch {
    return null;
  }
}

function heldError(
  dir: string,
  holder: Holder | null,
  state: "alive" | "unknown",
): DataDirError {
  const who = holder === null
    ? "a process that has not named itself yet"
    : `pid ${holder.pid} on host "${holder.host}", since ${holder.since}`;
  const what = state === "alive"
    ? "stop it first, or set router.storage.path to another directory"
    : `if that process no longer runs, delete "${join(dir, LOCK_FILE)}"`;
  return new DataDirError(
    `data directory "${dir}" is in use by another Switchyard (${who}): ${what}`,
  );
}

export interface DataDirLock {
  release(): void;
}

/**
 * Takes `dir` (which exists) for this process, or throws a DataDirError
 * naming the holder: with the runtime's file lock where it has one, else by
 * the lock file alone.
 */
export async function lockDataDir(dir: string): Promise<DataDirLock> {
  const file = join(dir, LOCK_FILE);
  const os = await tryLockFile(file);
  const mine = (lock: Holder["lock"]): string =>
    JSON.stringify(
      {
        pid: process.pid,
        host: hostname(),
        lock,
        started: processStart(process.pid),
        since: new Date().toISOString(),
      } satisfies Holder,
    ) + "\n";
  if (os === undefined) return lockByFile(dir, file, mine("pid"));
  const holder = parseHolder(readFileSync(file, "utf8"));
  if (os === null) throw heldError(dir, holder, "alive");
  // A holder by the lock file alone (a runtime without file locks) is not seen by flock.
  const state = holder?.lock === "pid" ? holderState(holder) : "gone";
  if (state !== "gone") {
    os.release();
    throw heldError(dir, holder!, state);
  }
  // Written in place, never replaced: a lock is on the file, and a new file would not have it.
  writeFileSync(file, mine("flock"));
  return {
    release() {
      try {
        writeFileSync(file, "");
      } catch { /* the directory went away under the store: nothing to clear */ }
      os.release();
    },
  };
}

/**
 * The lock file made exclusively, whole (a hard link to a finished draft).
 * A stale one is moved aside before it is replaced, and replaced only if what
 * was moved is the stale lock that was read: of two processes starting at
 * once on a crashed directory, one takes it and the other finds it alive.
 */
function lockByFile(dir: string, file: string, text: string): DataDirLock {
  const draft = `${file}.${process.pid}`;
  writeFileSync(draft, text, { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        linkSync(draft, file);
        return {
          release() {
            // Only this process's lock: never one taken over after this process was thought gone.
            try {
              if (readFileSync(file, "utf8") === text) unlinkSync(file);
            } catch { /* gone already, with the directory or by hand */ }
          },
        };
      } catch (error) {
        if ((error as { code?: string }).code !== "EEXIST") throw error;
      }
      let seen: string;
      try {
        seen = readFileSync(file, "utf8");
      } catch {
        continue; // released in between
      }
      const holder = parseHolder(seen);
      const state = holder === null ? "gone" : holderState(holder);
      if (state !== "gone") throw heldError(dir, holder, state);
      const aside = `${file}.stale.${process.pid}`;
      try {
        renameSync(file, aside);
      } catch {
        continue; // another process moved it first
      }
      if (readFileSync(aside, "utf8") !== seen) {
        // A fresh lock, taken between reading and moving: put it back for its holder.
        try {
          linkSync(aside, file);
        } catch { /* a third process took the directory; the next attempt names it */ }
      }
      unlinkSync(aside);
    }
    throw new DataDirError(`data directory "${dir}" could not be locked: try again`);
  } finally {
    unlinkSync(draft);
  }
}

/**
 * What a store's directory may hold before it is one: the template's top-level
 * names (a writing of it cut short), this lock, and a lock being written or
 * moved aside.
 */
function isOurs(name: string): boolean {
  return template.topLevel.includes(name) || name === LOCK_FILE || name.startsWith(`${LOCK_FILE}.`);
}

/** The embedded store's directory, taken for this process and fit to open. */
export interface DataDir extends DataDirLock {
  /** Whether it held a store already (else the template is written into it). */
  existing: boolean;
}

/**
 * Takes `dir` for this process (made if missing). A directory that is not yet
 * a store must hold nothing a store would not: the template is written only
 * into an empty directory, or over one whose writing was cut short.
 */
export async function openDataDir(dir: string): Promise<DataDir> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const lock = await lockDataDir(dir);
  const existing = !isNewStore(dir);
  const foreign = existing ? [] : readdirSync(dir).filter((name) => !isOurs(name)).sort();
  if (foreign.length > 0) {
    lock.release();
    throw new DataDirError(
      `data directory "${dir}" is not empty and holds no store (found "${foreign[0]}"): ` +
        "set router.storage.path to an empty or new directory",
    );
  }
  return { ...lock, existing };
}

/** A store that exists and cannot be opened: what failed, and what to do. */
export function unopenableError(dir: string, cause: unknown): DataDirError {
  const message = (cause instanceof Error ? cause.message : String(cause)).split("\n")[0];
  // PGlite reports a PostgreSQL that stopped while starting as WASM's bare `Aborted()`.
  const reason = message.startsWith("Aborted(") ? "PostgreSQL stopped while starting" : message;
  return new DataDirError(
    `data directory "${dir}" holds a store that cannot be opened (${reason}): ` +
      "restore it from a backup, or move it aside to start an empty store there",
  );
}
