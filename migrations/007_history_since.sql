-- A turn reads only the history its instance has not seen (issue 10): an
-- instance keeps the messages it read of a plaintext session (history_cache.ts)
-- and names the last one, by `seq` and `id`; the read returns the messages
-- after it. Messages of a session are only ever appended, and their `seq`s
-- commit in order (each append bumps `sessions.last_message_seq` under the
-- session's row lock), so what came before that message is exactly what the
-- instance holds. A message that is not there (another database, a session
-- deleted) gets the whole history, as does `after_seq` 0.
-- Instances of the previous version keep working through a rolling deploy:
-- migration 006's two-argument `switchyard_history` stays, and the claim
-- answers a request without `read.after_seq` in 006's form. A later migration
-- may drop both once no such instance is left.
-- { after, rows }: `after` the seq the rows follow (`after_seq`, or 0 when the
-- named message is not there); rows as [seq, role, content, constrained, id].
CREATE FUNCTION switchyard_history(of_session uuid, leave_out uuid, after_seq integer,
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
    SELECT coalesce(json_agg(json_build_array(m.seq, m.role, m.content, m.constrained, m.id)
                             ORDER BY m.seq), '[]'::json)
    FROM messages m
    WHERE m.session_id = of_session AND m.seq > after
      AND (leave_out IS NULL OR m.run_id IS DISTINCT FROM leave_out)));
END
$$;

-- Migration 006's claim, reading the history after `c.read.after_seq` / `after_id`
-- when the request names them.
CREATE OR REPLACE FUNCTION switchyard_claim_execute(c jsonb) RETURNS json
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
  IF live.id IS NOT NULL AND live.state = 'running' AND NOT switchyard_claim_lapsed(live, now_at) THEN
    RETURN json_build_object('kind', 'in_flight', 'run', to_json(live));
  END IF;
  IF live.id IS NOT NULL THEN
    UPDATE runs SET state = 'idle',
                    pause = NULL, claimed_by = NULL, claim_expires = NULL,
                    supersede_seq = supersede_seq + 1, updated_at = now_at
    WHERE id = live.id RETURNING supersede_seq INTO bumped;
    PERFORM pg_notify('switchyard_supersede', live.id::text || ':' || bumped::text);
    IF live.state = 'running' THEN
      PERFORM switchyard_trace_lost_turn(live, now_at);
    END IF;
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
  RETURN json_build_object(
    'kind', 'claimed',
    'run', to_json(claimed),
    'superseded', CASE WHEN live.id IS NULL THEN NULL ELSE to_json(live) END,
    'message_seqs', written -> 'message_seqs',
    'history', CASE
      WHEN c -> 'read' ? 'after_seq' THEN
        switchyard_history(claimed_session, claimed.id, (c -> 'read' ->> 'after_seq')::int,
                           (c -> 'read' ->> 'after_id')::uuid)
      WHEN c ? 'read' THEN switchyard_history(claimed_session, claimed.id) END,
    'memory', CASE WHEN c ? 'read' THEN
      switchyard_recall((c -> 'read' ->> 'user_id')::uuid, claimed_session, recall) END
  );
END
$$;
