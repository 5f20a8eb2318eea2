-- The append-only tables without foreign keys. A foreign key checks every row
-- it inserts with a query of its own (a lookup and a share lock on the
-- session's row): about ten a turn, for rows that name the session the turn
-- has locked already. Their integrity is kept by construction instead, where
-- they are written:
-- * the group write (`switchyard_write_turns`) locks each session its records
--   name once, bumping the message counter of those with messages and
--   share-locking the others, and fails with SQLSTATE 23503 when one is
--   missing, as the key did;
-- * a claim locks its session and inserts its run (whose key on sessions
--   stays: a run is one row a turn, and its key also guards the claim);
-- * the statements that append one record at a time (encrypted sessions)
--   name the session through `switchyard_held_session`, which does what the
--   key did for that row;
-- * deleting a session deletes its messages, trace and usage (the trigger
--   below), as the keys' ON DELETE CASCADE did, also for an instance of the
--   previous version. A write that locked the session first commits before
--   the delete, which then deletes what it wrote; a write that comes after
--   finds no session and fails.
-- Keys that stay: runs, sealed_content, approvals, memories, tokens (one row
-- a turn at most, or none).
ALTER TABLE messages DROP CONSTRAINT messages_session_id_fkey;
ALTER TABLE messages DROP CONSTRAINT messages_run_id_fkey;
ALTER TABLE trace_events DROP CONSTRAINT trace_events_session_id_fkey;
ALTER TABLE usage_events DROP CONSTRAINT usage_events_session_id_fkey;

CREATE FUNCTION switchyard_forget_session() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM messages WHERE session_id = OLD.id;
  DELETE FROM trace_events WHERE session_id = OLD.id;
  DELETE FROM usage_events WHERE session_id = OLD.id;
  RETURN OLD;
END
$$;
CREATE TRIGGER sessions_forget AFTER DELETE ON sessions
FOR EACH ROW EXECUTE FUNCTION switchyard_forget_session();

-- The session `of_session`, share-locked until the transaction ends, so it is
-- not deleted under a row that names it; a missing one fails like a key.
CREATE FUNCTION switchyard_held_session(of_session uuid) RETURNS uuid
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM sessions WHERE id = of_session FOR KEY SHARE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'the session of a record is not there' USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN of_session;
END
$$;

-- Migration 009's group write, holding every session its records name (see
-- above); the rest is as it was.
CREATE OR REPLACE FUNCTION switchyard_write_turns(ws jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  befores jsonb;
  held integer;
  wanted integer;
  moved integer[];
  answers jsonb;
BEGIN
  WITH named AS (
    SELECT (x.r ->> 'session_id')::uuid AS id, count(*) FILTER (WHERE x.k = 'm')::integer AS n
    FROM jsonb_array_elements(ws) AS t (w)
    CROSS JOIN LATERAL (
      SELECT 'm', m FROM jsonb_array_elements(t.w -> 'messages') AS m
      UNION ALL SELECT 't', e FROM jsonb_array_elements(t.w -> 'trace') AS e
      UNION ALL SELECT 'u', u FROM jsonb_array_elements(t.w -> 'usage') AS u
    ) AS x (k, r)
    GROUP BY 1
    ORDER BY 1
  ), bumped AS (
    UPDATE sessions s SET last_message_seq = s.last_message_seq + named.n
    FROM named
    WHERE s.id = named.id AND named.n > 0
    RETURNING s.id, s.last_message_seq - named.n AS before
  ), shared AS (
    SELECT s.id FROM sessions s JOIN named ON s.id = named.id
    WHERE named.n = 0
    FOR KEY SHARE OF s
  )
  SELECT jsonb_object_agg(id::text, before), count(*) + (SELECT count(*) FROM shared),
         (SELECT count(*) FROM named)
  INTO befores, held, wanted
  FROM bumped;
  IF held < wanted THEN
    RAISE EXCEPTION 'the session of a record is not there' USING ERRCODE = 'foreign_key_violation';
  END IF;

  WITH mv AS (
    SELECT t.i, t.w -> 'move' AS m
    FROM jsonb_array_elements(ws) WITH ORDINALITY AS t (w, i)
    WHERE t.w ? 'move'
    ORDER BY t.w -> 'move' ->> 'run_id'
  ), updated AS (
    UPDATE runs r
    SET state = mv.m ->> 'state',
        pause = CASE WHEN mv.m ->> 'state' = 'awaiting_client' THEN mv.m -> 'pause' END,
        run_input = coalesce(mv.m -> 'run_input', r.run_input),
        claimed_by = NULL, claim_expires = NULL, updated_at = (mv.m ->> 'now')::timestamptz
    FROM mv
    WHERE r.id = (mv.m ->> 'run_id')::uuid AND r.current_turn = (mv.m ->> 'turn_id')::uuid
      AND r.state = 'running'
    RETURNING mv.i
  )
  SELECT coalesce(array_agg(i::integer), '{}') INTO moved FROM updated;

  WITH ms AS (
    SELECT t.i, u.ord, u.m, (u.m ->> 'session_id')::uuid AS session_id,
           CASE WHEN u.m ->> 'session_id' = t.w -> 'messages' -> 0 ->> 'session_id' THEN
             (befores ->> (u.m ->> 'session_id'))::integer
               + row_number() OVER (PARTITION BY u.m ->> 'session_id' ORDER BY t.i, u.ord)::integer
           END AS seq,
           (u.m ->> 'interrupted')::boolean
             OR (coalesce((u.m ->> 'interrupted_unless_moved')::boolean, false)
                 AND NOT t.i::integer = ANY (moved)) AS cut
    FROM jsonb_array_elements(ws) WITH ORDINALITY AS t (w, i),
         jsonb_array_elements(t.w -> 'messages') WITH ORDINALITY AS u (m, ord)
  ), messaged AS (
    INSERT INTO messages (id, session_id, run_id, seq, role, content, provider, model,
                          constrained, interrupted, created_at)
    SELECT (m ->> 'id')::uuid, session_id, (m ->> 'run_id')::uuid, seq, m ->> 'role',
           m -> 'content', m ->> 'provider', m ->> 'model', (m ->> 'constrained')::boolean, cut,
           (m ->> 'created_at')::timestamptz
    FROM ms
    ORDER BY i, ord
  ), traced AS (
    INSERT INTO trace_events (session_id, trace_id, event_type, task_type, provider, model,
                              matched_rule, payload, created_at)
    SELECT (v.e ->> 'session_id')::uuid, (v.e ->> 'trace_id')::uuid, v.e ->> 'event_type',
           v.e ->> 'task_type', v.e ->> 'provider', v.e ->> 'model', v.e -> 'matched_rule' -> 'v',
           CASE
             WHEN v.e ? 'message_index' AND ms.cut THEN
               jsonb_set(jsonb_set(v.e -> 'payload', '{plaintext,seq}', to_jsonb(ms.seq)),
                         '{plaintext,interrupted}', 'true'::jsonb)
             WHEN v.e ? 'message_index' THEN
               jsonb_set(v.e -> 'payload', '{plaintext,seq}', to_jsonb(ms.seq))
             ELSE v.e -> 'payload'
           END,
           (v.e ->> 'created_at')::timestamptz
    FROM jsonb_array_elements(ws) WITH ORDINALITY AS t (w, i)
    CROSS JOIN LATERAL jsonb_array_elements(t.w -> 'trace') WITH ORDINALITY AS v (e, ord)
    LEFT JOIN ms ON ms.i = t.i AND ms.ord = (v.e ->> 'message_index')::integer + 1
    ORDER BY t.i, v.ord
  ), used AS (
    INSERT INTO usage_events (session_id, trace_id, provider, model, task_type, input_tokens,
                              output_tokens, cached_tokens, reasoning_tokens, cost, currency,
                              sealed, created_at)
    SELECT (x.u ->> 'session_id')::uuid, (x.u ->> 'trace_id')::uuid, x.u ->> 'provider',
           x.u ->> 'model', x.u ->> 'task_type', (x.u ->> 'input_tokens')::int,
           (x.u ->> 'output_tokens')::int, (x.u ->> 'cached_tokens')::int,
           (x.u ->> 'reasoning_tokens')::int, (x.u ->> 'cost')::numeric, x.u ->> 'currency',
           (x.u ->> 'sealed')::boolean, (x.u ->> 'created_at')::timestamptz
    FROM jsonb_array_elements(ws) WITH ORDINALITY AS t (w, i)
    CROSS JOIN LATERAL jsonb_array_elements(t.w -> 'usage') WITH ORDINALITY AS x (u, ord)
    ORDER BY t.i, x.ord
  )
  SELECT jsonb_agg(jsonb_build_object(
           'moved', NOT t.w ? 'move' OR t.i::integer = ANY (moved),
           'message_seqs', coalesce((SELECT jsonb_agg(ms.seq ORDER BY ms.ord) FROM ms
                                     WHERE ms.i = t.i), '[]'::jsonb))
         ORDER BY t.i)
  INTO answers
  FROM jsonb_array_elements(ws) WITH ORDINALITY AS t (w, i);
  RETURN answers;
END
$$;

-- The group write's statements are planned once, generically: a plan made
-- for each call's document (PostgreSQL's choice here) cost a write of one turn
-- about 0.3 ms of the server's CPU more.
ALTER FUNCTION switchyard_write_turns(jsonb) SET plan_cache_mode = force_generic_plan;

-- Migration 004's write of one turn, which the writer uses for a turn that
-- goes alone (at concurrency 1 it costs about half the group write of one) and
-- instances of the previous version call. The counter bump holds the
-- session of its messages; any other session its records name is held here.
CREATE OR REPLACE FUNCTION switchyard_write_turn(w jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  mv jsonb := w -> 'move';
  moved boolean := true;
BEGIN
  PERFORM switchyard_held_session(s.id)
  FROM (SELECT DISTINCT (r ->> 'session_id')::uuid AS id
        FROM jsonb_array_elements(coalesce(w -> 'trace', '[]'::jsonb)
                                  || coalesce(w -> 'usage', '[]'::jsonb)) AS r
        WHERE r ->> 'session_id' IS DISTINCT FROM w -> 'messages' -> 0 ->> 'session_id') AS s;
  IF mv IS NOT NULL THEN
    UPDATE runs
    SET state = mv ->> 'state',
        pause = CASE WHEN mv ->> 'state' = 'awaiting_client' THEN mv -> 'pause' END,
        run_input = coalesce(mv -> 'run_input', run_input),
        claimed_by = NULL, claim_expires = NULL, updated_at = (mv ->> 'now')::timestamptz
    WHERE id = (mv ->> 'run_id')::uuid AND current_turn = (mv ->> 'turn_id')::uuid
      AND state = 'running';
    moved := FOUND;
  END IF;
  RETURN switchyard_append_records(w, moved) || jsonb_build_object('moved', moved);
END
$$;
