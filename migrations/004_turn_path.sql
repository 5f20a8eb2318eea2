-- A turn in two round trips to the store (issue 10): one call claims the run,
-- stores the prompt and reads what the turn needs (`switchyard_claim_execute`,
-- migration 005, since it judges claims by instance liveness); one call writes
-- everything the turn produced together with the run transition that ends or
-- pauses it.
-- Both are PL/pgSQL functions so that each runs as one statement (one round
-- trip, one implicit transaction, cached plans for their inner statements)
-- while each inner statement still takes a fresh snapshot, so row locks work
-- exactly as they did when the engine sent the statements one by one.

-- The session's message counter: an append bumps it under the row lock, which
-- gives the next `seq` without reading the whole history (max(seq) + 1 did).
ALTER TABLE sessions ADD COLUMN last_message_seq integer NOT NULL DEFAULT 0;
UPDATE sessions SET last_message_seq = m.seq
FROM (SELECT session_id, max(seq) AS seq FROM messages GROUP BY session_id) AS m
WHERE m.session_id = sessions.id;

-- Appends the messages of `w.messages` in order and the trace events and usage
-- events of `w`. A message marked `interrupted_unless_moved` is interrupted
-- when `moved` is false (the run was superseded before the reply landed). A
-- trace event with `message_index` describes that message: its payload gets
-- the message's `seq` (and `interrupted` when it was). Returns the `seq`s.
CREATE FUNCTION switchyard_append_records(w jsonb, moved boolean) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  m jsonb;
  next_seq integer;
  message_seqs jsonb := '[]'::jsonb;
  cut jsonb := '[]'::jsonb;
  trace_seqs jsonb;
BEGIN
  FOR m IN SELECT value FROM jsonb_array_elements(coalesce(w -> 'messages', '[]'::jsonb)) LOOP
    UPDATE sessions SET last_message_seq = last_message_seq + 1
    WHERE id = (m ->> 'session_id')::uuid
    RETURNING last_message_seq INTO next_seq;
    INSERT INTO messages (id, session_id, run_id, seq, role, content, provider, model, constrained,
                          interrupted, created_at)
    VALUES ((m ->> 'id')::uuid, (m ->> 'session_id')::uuid, (m ->> 'run_id')::uuid, next_seq,
            m ->> 'role', m -> 'content', m ->> 'provider', m ->> 'model',
            (m ->> 'constrained')::boolean,
            (m ->> 'interrupted')::boolean
              OR (coalesce((m ->> 'interrupted_unless_moved')::boolean, false) AND NOT moved),
            (m ->> 'created_at')::timestamptz);
    message_seqs := message_seqs || to_jsonb(next_seq);
    cut := cut || to_jsonb((m ->> 'interrupted')::boolean
      OR (coalesce((m ->> 'interrupted_unless_moved')::boolean, false) AND NOT moved));
  END LOOP;

  WITH inserted AS (
    INSERT INTO trace_events (session_id, trace_id, event_type, task_type, provider, model,
                              matched_rule, payload, created_at)
    SELECT (e ->> 'session_id')::uuid, (e ->> 'trace_id')::uuid, e ->> 'event_type',
           e ->> 'task_type', e ->> 'provider', e ->> 'model', e -> 'matched_rule' -> 'v',
           CASE
             WHEN e ? 'message_index' AND (cut -> (e ->> 'message_index')::int)::boolean THEN
               jsonb_set(jsonb_set(e -> 'payload', '{plaintext,seq}',
                                   message_seqs -> (e ->> 'message_index')::int),
                         '{plaintext,interrupted}', 'true'::jsonb)
             WHEN e ? 'message_index' THEN
               jsonb_set(e -> 'payload', '{plaintext,seq}',
                         message_seqs -> (e ->> 'message_index')::int)
             ELSE e -> 'payload'
           END,
           (e ->> 'created_at')::timestamptz
    FROM jsonb_array_elements(coalesce(w -> 'trace', '[]'::jsonb)) WITH ORDINALITY AS t (e, ord)
    ORDER BY ord
    RETURNING seq
  )
  SELECT coalesce(jsonb_agg(seq ORDER BY seq), '[]'::jsonb) INTO trace_seqs FROM inserted;

  INSERT INTO usage_events (session_id, trace_id, provider, model, task_type, input_tokens,
                            output_tokens, cached_tokens, reasoning_tokens, cost, currency,
                            sealed, created_at)
  SELECT (u ->> 'session_id')::uuid, (u ->> 'trace_id')::uuid, u ->> 'provider', u ->> 'model',
         u ->> 'task_type', (u ->> 'input_tokens')::int, (u ->> 'output_tokens')::int,
         (u ->> 'cached_tokens')::int, (u ->> 'reasoning_tokens')::int,
         (u ->> 'cost')::numeric, u ->> 'currency', (u ->> 'sealed')::boolean,
         (u ->> 'created_at')::timestamptz
  FROM jsonb_array_elements(coalesce(w -> 'usage', '[]'::jsonb)) WITH ORDINALITY AS t (u, ord)
  ORDER BY ord;

  RETURN jsonb_build_object('message_seqs', message_seqs, 'trace_seqs', trace_seqs);
END
$$;

-- The end (or pause) of a turn: the fenced run transition of `w.move` (a no-op
-- once another request superseded the turn) and the turn's records, in one
-- transaction. `moved` says whether the transition happened.
CREATE FUNCTION switchyard_write_turn(w jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  mv jsonb := w -> 'move';
  moved boolean := true;
BEGIN
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
