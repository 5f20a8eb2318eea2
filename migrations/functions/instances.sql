-- Instance liveness (migration 005): every served instance beats its row in
-- `instances` about once a second; a claim held by an instance whose row is
-- older than three seconds is lapsed, exactly like one whose lease ran out.
-- A claim whose holder has no row falls back to the lease.
-- Repeatable: the current definition of every function below, applied after
-- the numbered migrations whenever this file's content changes (migrate.ts).
-- Change a function here, never in a new numbered migration; a change
-- CREATE OR REPLACE cannot make (a new return type, a dropped function) goes
-- with a numbered migration that drops the old one first.

-- Whether the running run `r` lost its turn at `now_at`: its lease ran out or
-- its holder stopped beating.
CREATE OR REPLACE FUNCTION switchyard_claim_lapsed(r runs, now_at timestamptz) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT r.state = 'running' AND (
    r.claim_expires IS NULL OR r.claim_expires <= now_at
    OR EXISTS (SELECT 1 FROM instances i
               WHERE i.id = r.claimed_by AND i.heartbeat_at <= now_at - interval '3 seconds'))
$$;

-- The trace event recording why a running run was cut without its holder: a
-- `message` event for the assistant reply that never landed (interface.md's
-- event types are closed; the message payload's shape is ours).
CREATE OR REPLACE FUNCTION switchyard_trace_lost_turn(r runs, now_at timestamptz) RETURNS void
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
CREATE OR REPLACE FUNCTION switchyard_reap_instances(me text, now_at timestamptz, sole boolean)
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
