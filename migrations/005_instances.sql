-- Instance liveness (issue 12): a crash costs seconds, not a claim lease.
-- Every served instance beats its row about once a second; a claim held by an
-- instance whose row is older than three seconds is lapsed, exactly like one
-- whose lease ran out. A claim whose holder has no row (a test harness, or an
-- instance whose row was reaped with its claims) falls back to the lease.
CREATE TABLE instances (
  id text PRIMARY KEY,
  heartbeat_at timestamptz NOT NULL
);

-- Whether the running run `r` lost its turn at `now_at`: its lease ran out or
-- its holder stopped beating.
CREATE FUNCTION switchyard_claim_lapsed(r runs, now_at timestamptz) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT r.state = 'running' AND (
    r.claim_expires IS NULL OR r.claim_expires <= now_at
    OR EXISTS (SELECT 1 FROM instances i
               WHERE i.id = r.claimed_by AND i.heartbeat_at <= now_at - interval '3 seconds'))
$$;

-- The trace event recording why a running run was cut without its holder: a
-- `message` event for the assistant reply that never landed (interface.md's
-- event types are closed; the message payload's shape is ours).
CREATE FUNCTION switchyard_trace_lost_turn(r runs, now_at timestamptz) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO trace_events (session_id, trace_id, event_type, task_type, provider, model,
                            matched_rule, payload, created_at)
  VALUES (r.session_id, r.current_turn, 'message', NULL, NULL, NULL, NULL,
          jsonb_build_object('plaintext', jsonb_build_object(
            'type', 'message', 'role', 'assistant', 'interrupted', true,
            'reason', 'instance_lost')),
          now_at)
$$;

-- Start-up of an instance: every running run whose holder is gone (lapsed, or
-- on the embedded store with `sole`, held by any other instance) is cut: it
-- goes idle with what was persisted, its cut is traced and announced, and the
-- rows of dead instances are dropped. Returns how many runs were cut.
CREATE FUNCTION switchyard_reap_instances(me text, now_at timestamptz, sole boolean)
RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  r runs;
  cut integer := 0;
BEGIN
  FOR r IN SELECT * FROM runs
           WHERE state = 'running' AND claimed_by IS DISTINCT FROM me FOR UPDATE LOOP
    IF sole OR switchyard_claim_lapsed(r, now_at) THEN
      UPDATE runs SET state = 'idle', pause = NULL, claimed_by = NULL, claim_expires = NULL,
                      supersede_seq = supersede_seq + 1, updated_at = now_at
      WHERE id = r.id;
      PERFORM switchyard_trace_lost_turn(r, now_at);
      PERFORM pg_notify('switchyard_supersede', r.id::text || ':' || (r.supersede_seq + 1)::text);
      cut := cut + 1;
    END IF;
  END LOOP;
  DELETE FROM instances
  WHERE id <> me AND (sole OR heartbeat_at <= now_at - interval '3 seconds');
  INSERT INTO instances (id, heartbeat_at) VALUES (me, now_at)
  ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at;
  RETURN cut;
END
$$;

-- What a turn reads besides its run, shared by the claim and by preview (which
-- reads it with the token): the session's messages of runs other than
-- `leave_out` (null: every message), oldest first, as [seq, role, content, constrained] (arrays, not
-- objects: this is built over the whole history on every turn), and the
-- recalled memory, the user's newest `recall` entries then the session's.
CREATE FUNCTION switchyard_history(of_session uuid, leave_out uuid) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (
    SELECT coalesce(jsonb_agg(jsonb_build_array(m.seq, m.role, m.content, m.constrained)
                              ORDER BY m.seq), '[]'::jsonb)
    FROM messages m
    WHERE m.session_id = of_session
      AND (leave_out IS NULL OR m.run_id IS DISTINCT FROM leave_out));
END
$$;

CREATE FUNCTION switchyard_recall(of_user uuid, of_session uuid, recall integer) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
BEGIN
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

-- `execute`'s admission (decisions.md §7) as one statement: lock the session,
-- refuse while a turn runs (its claim neither expired nor held by a silent
-- instance), supersede a run awaiting the client and announce it (a running run
-- whose claim lapsed goes idle like a superseded turn, its cut traced), start
-- the new run, cancel the superseded pause's tool calls in the trace (with
-- `c.cancelled_call` as the payload template), store `c.records` (the prompt,
-- through migration 004's `switchyard_append_records`), and read what the turn
-- needs: history and the recalled memory (above).
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
  IF live.id IS NOT NULL AND live.state = 'running' AND NOT switchyard_claim_lapsed(live, now_at) THEN
    RETURN jsonb_build_object('kind', 'in_flight', 'run', to_jsonb(live));
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
  RETURN jsonb_build_object(
    'kind', 'claimed',
    'run', to_jsonb(claimed),
    'superseded', CASE WHEN live.id IS NULL THEN NULL ELSE to_jsonb(live) END,
    'message_seqs', written -> 'message_seqs',
    'history', CASE WHEN c ? 'read' THEN switchyard_history(claimed_session, claimed.id) END,
    'memory', CASE WHEN c ? 'read' THEN
      switchyard_recall((c -> 'read' ->> 'user_id')::uuid, claimed_session, recall) END
  );
END
$$;
