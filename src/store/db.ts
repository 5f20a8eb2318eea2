/**
 * The one small interface every query function is written against. Two drivers
 * implement it: PGlite (embedded) and postgres.js (a PostgreSQL server).
 * Parameters are positional (`$1`); JSON goes in as text cast with `::jsonb`,
 * and numerics and bigints come out cast to text or int in SQL, so both
 * drivers return the same JavaScript values.
 */
export type Row = Record<string, unknown>;

export interface Queryable {
  query<T = Row>(text: string, params?: readonly unknown[]): Promise<T[]>;
  /** Runs several statements without parameters (migrations). */
  exec(text: string): Promise<void>;
}

export interface Db extends Queryable {
  readonly driver: "pglite" | "postgres";
  /**
   * Whether a commit that did not wait for its WAL's flush reaches the disk
   * within moments without another commit (unsynced_commit.ts): a server's
   * WAL writer, or the embedded store's thread flushing after it.
   */
  readonly flushesUnsyncedCommits?: boolean;
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
