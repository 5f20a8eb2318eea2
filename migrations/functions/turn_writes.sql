-- The end (or pause) of a turn: the fenced run transition and the turn's
-- records (messages, trace events, usage events), written as one unit.
-- Repeatable: the current definition of every function below, applied after
-- the numbered migrations whenever this file's content changes (migrate.ts).
-- Change a function here, never in a new numbered migration; a change
-- CREATE OR REPLACE cannot make (a new return type, a dropped function) goes
-- with a numbered migration that drops the old one first.

-- The payload of a trace row that describes a message (`message_index`),
-- given the message's `seq` and whether it was cut: the payload's plaintext
-- gets them, or, in a row of several events (turn_writes.ts, traceRows), the
-- entry `message_entry` of its `each`.
CREATE OR REPLACE FUNCTION switchyard_message_payload(e jsonb, seq jsonb, cut boolean)
RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN cut THEN
      jsonb_set(jsonb_set(e -> 'payload', CASE WHEN e ? 'message_entry'
                            THEN ARRAY['each', e ->> 'message_entry', 'seq']
                            ELSE '{plaintext,seq}' END, seq),
                CASE WHEN e ? 'message_entry'
                  THEN ARRAY['each', e ->> 'message_entry', 'interrupted']
                  ELSE '{plaintext,interrupted}' END, 'true'::jsonb)
    ELSE
      jsonb_set(e -> 'payload', CASE WHEN e ? 'message_entry'
                  THEN ARRAY['each', e ->> 'message_entry', 'seq']
                  ELSE '{plaintext,seq}' END, seq)
  END
$$;

-- Appends the messages of `w.messages` in order and the trace events and usage
-- events of `w`, in three statements: one UPDATE bumps the session's counter
-- by the number of messages, one INSERT stores them, one statement stores the
-- trace and the usage. The messages of one write belong to one session (they
-- are one turn's); a message of another session gets no `seq` and fails the
-- write, and a session that is not there fails it as a key would. A message marked `interrupted_unless_moved` is interrupted when
-- `moved` is false (the run was superseded before the reply landed). A trace
-- event with `message_index` describes that message: its payload gets the
-- message's `seq` (and `interrupted` when it was). Returns the `seq`s.
CREATE OR REPLACE FUNCTION switchyard_append_records(w jsonb, moved boolean) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  messages jsonb := coalesce(w -> 'messages', '[]'::jsonb);
  trace jsonb := coalesce(w -> 'trace', '[]'::jsonb);
  usage jsonb := coalesce(w -> 'usage', '[]'::jsonb);
  of_session uuid := (messages -> 0 ->> 'session_id')::uuid;
  before integer;
  message_seqs jsonb := '[]'::jsonb;
  cut jsonb := '[]'::jsonb;
BEGIN
  IF messages <> '[]'::jsonb THEN
    UPDATE sessions SET last_message_seq = last_message_seq + jsonb_array_length(messages)
    WHERE id = of_session
    RETURNING last_message_seq - jsonb_array_length(messages) INTO before;
    -- A session deleted under its turn fails the write as a key would (not as a null `seq`).
    IF NOT FOUND THEN
      RAISE EXCEPTION 'the session of a record is not there' USING ERRCODE = 'foreign_key_violation';
    END IF;
    WITH inserted AS (
      INSERT INTO messages (id, session_id, run_id, seq, role, content, provider, model,
                            constrained, interrupted, created_at)
      SELECT (m ->> 'id')::uuid, (m ->> 'session_id')::uuid, (m ->> 'run_id')::uuid,
             CASE WHEN (m ->> 'session_id')::uuid = of_session THEN before + ord::integer END,
             m ->> 'role', m -> 'content', m ->> 'provider', m ->> 'model',
             (m ->> 'constrained')::boolean,
             (m ->> 'interrupted')::boolean
               OR (coalesce((m ->> 'interrupted_unless_moved')::boolean, false) AND NOT moved),
             (m ->> 'created_at')::timestamptz
      FROM jsonb_array_elements(messages) WITH ORDINALITY AS t (m, ord)
      RETURNING seq, interrupted
    )
    SELECT jsonb_agg(seq ORDER BY seq), jsonb_agg(interrupted ORDER BY seq)
    INTO message_seqs, cut
    FROM inserted;
  END IF;

  IF trace <> '[]'::jsonb OR usage <> '[]'::jsonb THEN
    WITH traced AS (
      INSERT INTO trace_events (session_id, trace_id, event_type, task_type, provider, model,
                                matched_rule, payload, created_at)
      SELECT (e ->> 'session_id')::uuid, (e ->> 'trace_id')::uuid, e ->> 'event_type',
             e ->> 'task_type', e ->> 'provider', e ->> 'model', e -> 'matched_rule' -> 'v',
             CASE
               WHEN e ? 'message_index' THEN
                 switchyard_message_payload(e, message_seqs -> (e ->> 'message_index')::int,
                                            (cut -> (e ->> 'message_index')::int)::boolean)
               ELSE e -> 'payload'
             END,
             (e ->> 'created_at')::timestamptz
      FROM jsonb_array_elements(trace) WITH ORDINALITY AS t (e, ord)
      ORDER BY ord
    )
    INSERT INTO usage_events (session_id, trace_id, provider, model, task_type, input_tokens,
                              output_tokens, cached_tokens, cache_write_tokens, reasoning_tokens,
                              cost, currency, sealed, created_at)
    SELECT (u ->> 'session_id')::uuid, (u ->> 'trace_id')::uuid, u ->> 'provider', u ->> 'model',
           u ->> 'task_type', (u ->> 'input_tokens')::int, (u ->> 'output_tokens')::int,
           (u ->> 'cached_tokens')::int, (u ->> 'cache_write_tokens')::int,
           (u ->> 'reasoning_tokens')::int,
           (u ->> 'cost')::numeric, u ->> 'currency', (u ->> 'sealed')::boolean,
           (u ->> 'created_at')::timestamptz
    FROM jsonb_array_elements(usage) WITH ORDINALITY AS t (u, ord)
    ORDER BY ord;
  END IF;

  RETURN jsonb_build_object('message_seqs', message_seqs);
END
$$;

-- The write of one turn: the fenced run transition of `w.move` (a no-op once
-- another request superseded the turn) and the turn's records, in one
-- transaction; `moved` says whether the transition happened. The writer uses
-- it for a turn that goes alone (at concurrency 1 it costs about half the
-- group write of one). The counter bump holds the session of its messages;
-- any other session its records name is held here: those the instance lists
-- in `w.holds` (usually none, and then no statement runs: a query over the
-- records was 7 % of the embedded store's write), or, in a document of an
-- instance of an earlier version (a rolling deploy), those its records name.
CREATE OR REPLACE FUNCTION switchyard_write_turn(w jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  mv jsonb := w -> 'move';
  moved boolean := true;
BEGIN
  IF NOT w ? 'holds' THEN
    PERFORM switchyard_held_session(s.id)
    FROM (SELECT DISTINCT (r ->> 'session_id')::uuid AS id
          FROM jsonb_array_elements(coalesce(w -> 'trace', '[]'::jsonb)
                                    || coalesce(w -> 'usage', '[]'::jsonb)) AS r
          WHERE r ->> 'session_id' IS DISTINCT FROM w -> 'messages' -> 0 ->> 'session_id') AS s;
  ELSIF w -> 'holds' <> '[]'::jsonb THEN
    PERFORM switchyard_held_session(h::uuid) FROM jsonb_array_elements_text(w -> 'holds') AS h;
  END IF;
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

-- The ends of many turns in one transaction (group commit): an instance's one
-- writer (turn_writer.ts) takes the records of every turn that finished while
-- its previous write was in flight and hands them here together. Each turn is
-- what `switchyard_write_turn` takes; the answer is one { moved, message_seqs }
-- per turn, in order. The work is done in three multi-row statements whatever
-- the number of turns:
--   1. every session the records name, held once: the counters of those with
--      messages bumped (their row locks first, in id order, as a claim takes a
--      session's before its run's, so a batch and a claim wait for each other,
--      never in a cycle), the others share-locked; a missing one fails with
--      SQLSTATE 23503, as a foreign key did;
--   2. the fenced run transitions, in run id order;
--   3. the messages, the trace events and the usage events.
-- A turn's messages must belong to one session: a message of another session
-- gets no `seq`, and the write fails. A write that fails fails as a whole; the
-- writer then writes its turns one by one, so one turn's bad record fails that
-- turn alone. Its statements are planned once, generically: a plan made for
-- each call's document (PostgreSQL's choice here) cost a write of one turn
-- about 0.3 ms of the server's CPU more.
CREATE OR REPLACE FUNCTION switchyard_write_turns(ws jsonb) RETURNS jsonb
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
AS $$
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
             WHEN v.e ? 'message_index' THEN switchyard_message_payload(v.e, to_jsonb(ms.seq), ms.cut)
             ELSE v.e -> 'payload'
           END,
           (v.e ->> 'created_at')::timestamptz
    FROM jsonb_array_elements(ws) WITH ORDINALITY AS t (w, i)
    CROSS JOIN LATERAL jsonb_array_elements(t.w -> 'trace') WITH ORDINALITY AS v (e, ord)
    LEFT JOIN ms ON ms.i = t.i AND ms.ord = (v.e ->> 'message_index')::integer + 1
    ORDER BY t.i, v.ord
  ), used AS (
    INSERT INTO usage_events (session_id, trace_id, provider, model, task_type, input_tokens,
                              output_tokens, cached_tokens, cache_write_tokens, reasoning_tokens,
                              cost, currency, sealed, created_at)
    SELECT (x.u ->> 'session_id')::uuid, (x.u ->> 'trace_id')::uuid, x.u ->> 'provider',
           x.u ->> 'model', x.u ->> 'task_type', (x.u ->> 'input_tokens')::int,
           (x.u ->> 'output_tokens')::int, (x.u ->> 'cached_tokens')::int,
           (x.u ->> 'cache_write_tokens')::int, (x.u ->> 'reasoning_tokens')::int, (x.u ->> 'cost')::numeric, x.u ->> 'currency',
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
