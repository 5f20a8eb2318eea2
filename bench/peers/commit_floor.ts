/**
 * The machine's floor under a persisted turn: what one synced commit costs
 * here, whatever the service does. On PostgreSQL, single-row INSERTs each
 * committed on their own with `synchronous_commit = on` (the server's WAL
 * flushed per commit, as a turn's end is); for the embedded store, which
 * syncs its WAL with fsync(2) on its data directory, a page written and
 * fsync'd there. Printed beside what the service adds.
 */
import { closeSync, fsyncSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { type Spread, spread } from "../measure.ts";

const COMMITS = 200;

export interface CommitFloor {
  what: string;
  commit: Spread;
  /** The server's settings that decide whether a commit waits for the disk. */
  settings?: string;
}

/** Synced single-row commits on the PostgreSQL database at `url` (a table made and dropped). */
export async function postgresCommitFloor(url: string): Promise<CommitFloor> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql`SET synchronous_commit = on`;
    const [{ fsync }] = await sql`SELECT current_setting('fsync') AS fsync`;
    const [{ method }] = await sql`SELECT current_setting('wal_sync_method') AS method`;
    await sql`CREATE TABLE IF NOT EXISTS bench_commit_floor (n int)`;
    const times: number[] = [];
    for (let i = 0; i < COMMITS + 20; i++) {
      const start = performance.now();
      await sql`INSERT INTO bench_commit_floor VALUES (${i})`;
      if (i >= 20) times.push(performance.now() - start);
    }
    await sql`DROP TABLE bench_commit_floor`;
    return {
      what: "PostgreSQL: one-row INSERT, its own synced commit",
      commit: spread(times),
      settings: `fsync=${fsync}, synchronous_commit=on, wal_sync_method=${method}`,
    };
  } finally {
    await sql.end();
  }
}

/** An 8 KB page written and fsync'd in `dir` (the embedded store's data directory's disk). */
export function diskSyncFloor(dir: string): CommitFloor {
  const file = join(dir, "bench-commit-floor");
  const fd = openSync(file, "w");
  const page = new Uint8Array(8192).fill(7);
  const times: number[] = [];
  try {
    for (let i = 0; i < COMMITS + 20; i++) {
      const start = performance.now();
      writeSync(fd, page, 0, page.length, (i % 16) * page.length);
      fsyncSync(fd);
      if (i >= 20) times.push(performance.now() - start);
    }
  } finally {
    closeSync(fd);
    rmSync(file, { force: true });
  }
  return {
    what: "disk: an 8 KB page written and fsync'd (the embedded store's WAL sync)",
    commit: spread(times),
  };
}
