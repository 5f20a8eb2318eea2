-- A write's records in fewer statements (issue 10): migration 004's
-- `switchyard_append_records` ran a loop query, then an UPDATE of the session
-- and an INSERT per message, then one INSERT for the trace and one for the
-- usage. Each statement in PL/pgSQL sets up and tears down its own executor;
-- on the embedded store that was about 6 % of a turn's time in the database.
-- Now: one UPDATE bumps the session's counter by the number of messages, one
-- INSERT stores them, one statement stores the trace and the usage. The
-- messages of one write belong to one session (they are one turn's); a
-- message of another session gets no `seq` and fails the write. The `seq`s of
-- the trace rows were returned and never read: they are no longer.
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
      FROM jsonb_array_elements(trace) WITH ORDINALITY AS t (e, ord)
      ORDER BY ord
    )
    INSERT INTO usage_events (session_id, trace_id, provider, model, task_type, input_tokens,
                              output_tokens, cached_tokens, reasoning_tokens, cost, currency,
                              sealed, created_at)
    SELECT (u ->> 'session_id')::uuid, (u ->> 'trace_id')::uuid, u ->> 'provider', u ->> 'model',
           u ->> 'task_type', (u ->> 'input_tokens')::int, (u ->> 'output_tokens')::int,
           (u ->> 'cached_tokens')::int, (u ->> 'reasoning_tokens')::int,
           (u ->> 'cost')::numeric, u ->> 'currency', (u ->> 'sealed')::boolean,
           (u ->> 'created_at')::timestamptz
    FROM jsonb_array_elements(usage) WITH ORDINALITY AS t (u, ord)
    ORDER BY ord;
  END IF;

  RETURN jsonb_build_object('message_seqs', message_seqs);
END
$$;
