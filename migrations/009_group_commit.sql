-- The ends of many turns in one transaction (group commit): an instance's one
-- writer (turn_writer.ts) takes the records of every turn that finished while
-- its previous write was in flight and hands them here together. Each turn is
-- what migration 004's `switchyard_write_turn` takes; the answer is one
-- { moved, message_seqs } per turn, in order. The work is done in three
-- multi-row statements whatever the number of turns:
--   1. the session counters of every message, bumped once per session (their
--      row locks first, in id order, as a claim takes a session's before its
--      run's, so a batch and a claim wait for each other, never in a cycle);
--   2. the fenced run transitions, in run id order;
--   3. the messages, the trace events and the usage events.
-- A turn's messages must belong to one session (migration 008's rule): a
-- message of another session gets no `seq`, and the write fails. A write that
-- fails fails as a whole; the writer then writes its turns one by one, so one
-- turn's bad record fails that turn alone.
-- `switchyard_write_turn` stays for instances of the previous version.
CREATE FUNCTION switchyard_write_turns(ws jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  befores jsonb;
  moved integer[];
  answers jsonb;
BEGIN
  WITH counts AS (
    SELECT (m ->> 'session_id')::uuid AS id, count(*)::integer AS n
    FROM jsonb_array_elements(ws) AS t (w),
         jsonb_array_elements(t.w -> 'messages') AS u (m)
    GROUP BY 1
    ORDER BY 1
  ), bumped AS (
    UPDATE sessions s SET last_message_seq = s.last_message_seq + counts.n
    FROM counts
    WHERE s.id = counts.id
    RETURNING s.id, s.last_message_seq - counts.n AS before
  )
  SELECT jsonb_object_agg(id::text, before) INTO befores FROM bumped;

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
