-- A turn in two round trips to the store (issue 10): one call claims the run,
-- stores the prompt and reads what the turn needs; one call writes everything
-- the turn produced together with the run transition that ends or pauses it.
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

-- `execute`'s admission (decisions.md §7) as one statement: lock the session,
-- refuse while a turn runs (its claim not lapsed), supersede a run awaiting the
-- client (idle; a lapsed running run goes to error) and announce it, start the
-- new run, cancel the superseded pause's tool calls in the trace (with
-- `c.cancelled_call` as the payload template), store `c.records` (the prompt),
-- and read what the turn needs: history and the recalled memory.
CREATE FUNCTION switchyard_claim_execute(c jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  claimed_session uuid := (c ->> 'session_id')::uuid;
  now_at timestamptz := (c ->> 'now')::timestamptz;
  live runs;
  claimed runs;
  bumped integer;
  cancelled jsonb := '[]'::jsonb;
  written jsonb;
  recall integer := (c ->> 'recall_limit')::int;
BEGIN
  PERFORM 1 FROM sessions WHERE id = claimed_session FOR NO KEY UPDATE;
  SELECT * INTO live FROM runs
  WHERE runs.session_id = claimed_session
    AND state IN ('running', 'awaiting_client') FOR UPDATE;
  IF live.id IS NOT NULL AND live.state = 'running' AND live.claim_expires > now_at THEN
    RETURN jsonb_build_object('kind', 'in_flight', 'run', to_jsonb(live));
  END IF;
  IF live.id IS NOT NULL THEN
    UPDATE runs SET state = CASE WHEN live.state = 'running' THEN 'error' ELSE 'idle' END,
                    pause = NULL, claimed_by = NULL, claim_expires = NULL,
                    supersede_seq = supersede_seq + 1, updated_at = now_at
    WHERE id = live.id RETURNING supersede_seq INTO bumped;
    PERFORM pg_notify('switchyard_supersede', live.id::text || ':' || bumped::text);
    IF c ? 'cancelled_call' AND live.pause ->> 'kind' = 'tool' THEN
      SELECT coalesce(jsonb_agg(jsonb_set(c -> 'cancelled_call', '{payload,plaintext}',
                                          (c -> 'cancelled_call' -> 'payload' -> 'plaintext')
                                          || jsonb_build_object('call_id', p ->> 'call_id',
                                                                'tool_name', p ->> 'name'))
                                ORDER BY ord), '[]'::jsonb)
      INTO cancelled
      FROM jsonb_array_elements(live.pause -> 'calls') WITH ORDINALITY AS t (p, ord);
    END IF;
  END IF;
  INSERT INTO runs (id, session_id, state, run_input, current_turn, claimed_by, claim_expires,
                    created_at, updated_at)
  VALUES ((c ->> 'run_id')::uuid, claimed_session, 'running', coalesce(c -> 'run_input', '{}'::jsonb),
          (c ->> 'turn_id')::uuid, c ->> 'instance', (c ->> 'lease_until')::timestamptz, now_at,
          now_at)
  RETURNING * INTO claimed;
  -- The cancelled calls come first in the trace, then the prompt's records.
  written := switchyard_append_records(jsonb_build_object(
    'messages', coalesce(c -> 'records' -> 'messages', '[]'::jsonb),
    'trace', cancelled || coalesce(c -> 'records' -> 'trace', '[]'::jsonb)
  ), true);
  RETURN jsonb_build_object(
    'kind', 'claimed',
    'run', to_jsonb(claimed),
    'superseded', CASE WHEN live.id IS NULL THEN NULL ELSE to_jsonb(live) END,
    'message_seqs', written -> 'message_seqs',
    'history', CASE WHEN c ? 'read' THEN (
      SELECT coalesce(jsonb_agg(jsonb_build_object(
               'seq', m.seq, 'run_id', m.run_id, 'role', m.role, 'content', m.content,
               'constrained', m.constrained) ORDER BY m.seq), '[]'::jsonb)
      FROM messages m WHERE m.session_id = claimed_session) END,
    'memory', CASE WHEN c ? 'read' THEN (
      SELECT coalesce(jsonb_agg(jsonb_build_object(
               'id', r.id, 'session_id', r.session_id, 'key', r.key, 'value', r.value)
             ORDER BY r.session_id IS NULL DESC, r.updated_at DESC, r.id DESC), '[]'::jsonb)
      FROM (
        (SELECT * FROM memories mu
         WHERE mu.user_id = (c -> 'read' ->> 'user_id')::uuid AND mu.session_id IS NULL
         ORDER BY mu.updated_at DESC, mu.id DESC LIMIT recall)
        UNION ALL
        (SELECT * FROM memories ms
         WHERE ms.user_id = (c -> 'read' ->> 'user_id')::uuid
           AND ms.session_id = claimed_session
         ORDER BY ms.updated_at DESC, ms.id DESC LIMIT recall)
      ) AS r) END
  );
END
$$;
