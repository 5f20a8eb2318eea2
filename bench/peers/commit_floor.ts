/**
 * The machine's floor under a persisted turn: what one synced commit costs
 * here, whatever the service does. On PostgreSQL, single-row INSERTs each
 * committed on their own with `synchronous_commit = on` (the server's WAL
 * flushed per commit, as a turn's end is), and a `SELECT 1` (a claim's round
 * trip, its commit unsynced); for the embedded store, which syncs its WAL
 * with fsync(2) on its data directory, a page written and fsync'd there.
 * Each is timed back to back and after an idle pause: a turn at concurrency 1
 * meets its store after the provider's call, with the server and the disk
 * idle, and waking them costs (on these machines a synced commit after a
 * pause took three times as long). Printed beside what the service adds.
 */
import { closeSync, fsyncSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { type Spread, spread } from "../measure.ts";

const COMMITS = 200;
/** The idle time before each paused sample: about what a turn at concurrency 1 spends between its statements. */
export const FLOOR_PAUSE_MS = 3;

export interface CommitFloor {
  what: string;
  /** Back to back. */
  commit: Spread;
  /** Each after FLOOR_PAUSE_MS idle. */
  commitAfterPause: Spread;
  /** PostgreSQL's round trip (`SELECT 1`) after the same pause; none in process. */
  roundTripAfterPause?: Spread;
  /** The server's settings that decide whether a commit waits for the disk. */
  settings?: string;
}

/**
 * What the store alone costs a turn at concurrency 1: the claim's round trip
 * (its commit unsynced) and the write's synced commit, each after a pause.
 */
export const turnFloor = (f: CommitFloor) =>
  (f.roundTripAfterPause?.p50 ?? 0) + f.commitAfterPause.p50;

const pause = () => new Promise((resolve) => setTimeout(resolve, FLOOR_PAUSE_MS));

/** `step` timed COMMITS times after 20 untimed, each after a pause when `paused`. */
async function timed(step: (i: number) => Promise<unknown> | void, paused: boolean) {
  const times: number[] = [];
  for (let i = 0; i < COMMITS + 20; i++) {
    if (paused) await pause();
    const start = performance.now();
    await step(i);
    if (i >= 20) times.push(performance.now() - start);
  }
  return spread(times);
}

/** Synced single-row commits on the PostgreSQL database at `url` (a table made and dropped). */
export async function postgresCommitFloor(url: string): Promise<CommitFloor> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql`SET synchronous_commit = on`;
    const [{ fsync }] = await sql`SELECT current_setting('fsync') AS fsync`;
    const [{ method }] = await sql`SELECT current_setting('wal_sync_method') AS method`;
    await sql`CREATE TABLE IF NOT EXISTS bench_commit_floor (n int)`;
    const insert = (i: number) => sql`INSERT INTO bench_commit_floor VALUES (${i})`;
    const commit = await timed(insert, false);
    const commitAfterPause = await timed(insert, true);
    const roundTripAfterPause = await timed(() => sql`SELECT 1`, true);
    await sql`DROP TABLE bench_commit_floor`;
    return {
      what: "PostgreSQL: one-row INSERT, its own synced commit",
      commit,
      commitAfterPause,
      roundTripAfterPause,
      settings: `fsync=${fsync}, synchronous_commit=on, wal_sync_method=${method}`,
    };
  } finally {
    await sql.end();
  }
}

/** An 8 KB page written and fsync'd in `dir` (the embedded store's data directory's disk). */
export async function diskSyncFloor(dir: string): Promise<CommitFloor> {
  const file = join(dir, "bench-commit-floor");
  const fd = openSync(file, "w");
  const page = new Uint8Array(8192).fill(7);
  const sync = (i: number) => {
    writeSync(fd, page, 0, page.length, (i % 16) * page.length);
    fsyncSync(fd);
  };
  try {
    return {
      what: "disk: an 8 KB page written and fsync'd (the embedded store's WAL sync)",
      commit: await timed(sync, false),
      commitAfterPause: await timed(sync, true),
    };
  } finally {
    closeSync(fd);
    rmSync(file, { force: true });
  }
}
