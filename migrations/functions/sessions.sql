-- A session's records without foreign keys (migrations 010 and 011): the
-- append-only tables and `runs` name their session without a key, and their
-- integrity is kept where they are written. These two functions do what the
-- keys did.
-- Repeatable: the current definition of every function below, applied after
-- the numbered migrations whenever this file's content changes (migrate.ts).
-- Change a function here, never in a new numbered migration; a change
-- CREATE OR REPLACE cannot make (a new return type, a dropped function) goes
-- with a numbered migration that drops the old one first.

-- Deleting a session deletes its messages, trace, usage and runs (the trigger
-- `sessions_forget`), as the keys' ON DELETE CASCADE did. A write that locked
-- the session first commits before the delete, which then deletes what it
-- wrote; a write that comes after finds no session and fails.
CREATE OR REPLACE FUNCTION switchyard_forget_session() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM messages WHERE session_id = OLD.id;
  DELETE FROM trace_events WHERE session_id = OLD.id;
  DELETE FROM usage_events WHERE session_id = OLD.id;
  DELETE FROM runs WHERE session_id = OLD.id;
  RETURN OLD;
END
$$;

-- The session `of_session`, share-locked until the transaction ends, so it is
-- not deleted under a row that names it; a missing one fails like a key.
CREATE OR REPLACE FUNCTION switchyard_held_session(of_session uuid) RETURNS uuid
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM sessions WHERE id = of_session FOR KEY SHARE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'the session of a record is not there' USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN of_session;
END
$$;
