/**
 * A claim commits without waiting for its WAL to reach the disk: the turn's
 * end is written later with a synced commit, whose flush covers the claim
 * before anything of the turn is acknowledged, and a claim lost in a crash
 * belonged to a turn never answered. Every other write keeps its synced
 * commit. Only on a store whose unsynced commits reach the disk within
 * moments by themselves (`Db.flushesUnsyncedCommits`): a PostgreSQL server's
 * WAL writer flushes them, and the embedded store's thread flushes right after
 * such a statement (pglite_worker.ts), while the request thread goes on.
 */

/** Put in a statement, makes its (implicit) transaction commit unsynced. */
export const UNSYNCED_COMMIT = "set_config('synchronous_commit', 'off', true)";

/**
 * Flushes the WAL an unsynced commit left, and nothing when all of it is on
 * the disk: a transactional message is a synced commit of its own, and its
 * flush covers every record before it.
 */
export const FLUSH_WAL =
  "SELECT CASE WHEN pg_current_wal_flush_lsn() < pg_current_wal_insert_lsn() " +
  "THEN pg_logical_emit_message(true, 'switchyard', '') END AS flushed";
