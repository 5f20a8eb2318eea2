-- Instance liveness seen at once on PostgreSQL: an instance holds a
-- session-level advisory lock on a connection of its own for its whole life
-- (store/liveness_lock.ts) and records its key here. A killed process's
-- connection closes and the lock goes with it within milliseconds, so an
-- instance whose recorded lock nobody holds is gone, without waiting for its
-- heartbeat to lapse (functions/instances.sql). NULL (the embedded store, an
-- instance of an older version): the heartbeat alone judges.
ALTER TABLE instances ADD COLUMN liveness_lock bigint;
