-- What a turn reads besides its run, shared by the claim and by preview
-- (which reads it with the token): the session's history and the recalled
-- memory.
-- Repeatable: the current definition of every function below, applied after
-- the numbered migrations whenever this file's content changes (migrate.ts).
-- Change a function here, never in a new numbered migration; a change
-- CREATE OR REPLACE cannot make (a new return type, a dropped function) goes
-- with a numbered migration that drops the old one first.

-- The session's messages of runs other than `leave_out` (null: every
-- message), oldest first, as [seq, role, content, constrained] (arrays, not
-- objects: this is built over the whole history on every turn), as `json`,
-- not `jsonb`: it is built to be sent, never queried. The claim calls it for
-- a request that names no `read.after_seq` (an instance of an earlier
-- version, through a rolling deploy).
CREATE OR REPLACE FUNCTION switchyard_history(of_session uuid, leave_out uuid) RETURNS json
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (
    SELECT coalesce(json_agg(json_build_array(m.seq, m.role, m.content, m.constrained)
                             ORDER BY m.seq), '[]'::json)
    FROM messages m
    WHERE m.session_id = of_session
      AND (leave_out IS NULL OR m.run_id IS DISTINCT FROM leave_out));
END
$$;

-- The history an instance has not seen (history_cache.ts): the instance
-- names the last message it holds by `seq` and `id`, and the read returns the
-- messages after it. Messages of a session are only ever appended and their
-- `seq`s commit in order (each append bumps `sessions.last_message_seq` under
-- the session's row lock), so what came before that message is exactly what
-- the instance holds. A message that is not there (another database, a
-- session deleted) gets the whole history, as does `after_seq` 0.
-- { after, rows }: `after` the seq the rows follow (`after_seq`, or 0 when the
-- named message is not there); rows as [seq, role, content, constrained, id,
-- run_id] (a continued turn leaves its own run's messages out of its history:
-- they are in its run input).
CREATE OR REPLACE FUNCTION switchyard_history(of_session uuid, leave_out uuid, after_seq integer,
                                   after_id uuid) RETURNS json
LANGUAGE plpgsql STABLE AS $$
DECLARE
  after integer := 0;
BEGIN
  IF after_seq > 0 AND EXISTS (SELECT 1 FROM messages
                               WHERE session_id = of_session AND seq = after_seq
                                 AND id = after_id) THEN
    after := after_seq;
  END IF;
  RETURN json_build_object('after', after, 'rows', (
    SELECT coalesce(json_agg(json_build_array(m.seq, m.role, m.content, m.constrained, m.id,
                                              m.run_id)
                             ORDER BY m.seq), '[]'::json)
    FROM messages m
    WHERE m.session_id = of_session AND m.seq > after
      AND (leave_out IS NULL OR m.run_id IS DISTINCT FROM leave_out)));
END
$$;

-- The recalled memory: the user's newest `recall` entries, then the
-- session's. Most users keep none, and two index probes say so for less than
-- the sorted read costs (a tenth of a claim on the embedded store).
CREATE OR REPLACE FUNCTION switchyard_recall(of_user uuid, of_session uuid, recall integer) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM memories WHERE user_id = of_user AND session_id IS NULL)
     AND NOT EXISTS (SELECT 1 FROM memories WHERE session_id = of_session AND user_id = of_user)
  THEN
    RETURN '[]'::jsonb;
  END IF;
  RETURN (
    SELECT coalesce(jsonb_agg(jsonb_build_object(
             'id', r.id, 'session_id', r.session_id, 'key', r.key, 'value', r.value)
           ORDER BY r.session_id IS NULL DESC, r.updated_at DESC, r.id DESC), '[]'::jsonb)
    FROM (
      (SELECT * FROM memories mu
       WHERE mu.user_id = of_user AND mu.session_id IS NULL
       ORDER BY mu.updated_at DESC, mu.id DESC LIMIT recall)
      UNION ALL
      (SELECT * FROM memories ms
       WHERE ms.user_id = of_user AND ms.session_id = of_session
       ORDER BY ms.updated_at DESC, ms.id DESC LIMIT recall)
    ) AS r);
END
$$;
