-- Instance liveness (migrations 005 and 016): every served instance beats its
-- row in `instances` about once a second; on PostgreSQL it also holds an
-- advisory lock whose key its row records, for its whole life, on a
-- connection of its own (store/liveness_lock.ts). A claim held by an instance
-- that is gone (its row older than three seconds, or its lock held by no one)
-- is lapsed, exactly like one whose lease ran out. A claim whose holder has no
-- row falls back to the lease.
-- Repeatable: the current definition of every function below, applied after
-- the numbered migrations whenever this file's content changes (migrate.ts).
-- Change a function here, never in a new numbered migration; a change
-- CREATE OR REPLACE cannot make (a new return type, a dropped function) goes
-- with a numbered migration that drops the old one first.

-- Whether a free liveness lock, or a stale heartbeat of an instance that
-- records one, proves that instance gone at `now_at`. When the server starts,
-- every lock is free and every heartbeat as old as the outage, though the
-- instances live: each takes its lock again within the driver's reconnect
-- wait and beats within a second (store/liveness_lock.ts, instance_life.ts).
-- For the heartbeat's three seconds after the server's start nothing proves
-- an instance with a lock gone: its turns are not taken over and its budget
-- reservations still count. `now_at` is the service's clock, as in every
-- heartbeat comparison; the start time is the server's.
CREATE OR REPLACE FUNCTION switchyard_locks_settled(now_at timestamptz) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT now_at >= pg_postmaster_start_time() + interval '3 seconds'
$$;

-- Whether instance `i` is gone at `now_at`: it stopped beating, or the lock it
-- recorded is held by no one (its process died and its connection closed),
-- once the locks have settled after the server's start.
-- The lock is tried shared for the rest of the caller's transaction: checks
-- never wait for each other, and an instance holding its lock is never taken
-- for gone. No round trip: the claims ask only about a run another turn holds.
CREATE OR REPLACE FUNCTION switchyard_instance_gone(i instances, now_at timestamptz)
RETURNS boolean
LANGUAGE sql VOLATILE AS $$
  SELECT CASE
    WHEN i.liveness_lock IS NULL THEN i.heartbeat_at <= now_at - interval '3 seconds'
    ELSE switchyard_locks_settled(now_at)
         AND (i.heartbeat_at <= now_at - interval '3 seconds'
              OR pg_try_advisory_xact_lock_shared(i.liveness_lock))
  END
$$;

-- Whether the running run `r` lost its turn at `now_at`: its lease ran out or
-- its holder is gone.
CREATE OR REPLACE FUNCTION switchyard_claim_lapsed(r runs, now_at timestamptz) RETURNS boolean
LANGUAGE sql VOLATILE AS $$
  SELECT r.state = 'running' AND (
    r.claim_expires IS NULL OR r.claim_expires <= now_at
    OR EXISTS (SELECT 1 FROM instances i
               WHERE i.id = r.claimed_by AND switchyard_instance_gone(i, now_at)))
$$;

-- Whether the running run `r` lost its turn at `now_at`, as instance `me`
-- judges it when it claims the run's session: a run `me` itself holds is
-- judged by its lease alone. `me` is alive (it is asking), though its lock is
-- free for a moment after the database restarts, before it takes it again;
-- its turns that are over but still hold their runs it ends itself
-- (engine/lost_turns.ts), so it never takes its own live turn for gone.
CREATE OR REPLACE FUNCTION switchyard_claim_lapsed(r runs, now_at timestamptz, me text)
RETURNS boolean
LANGUAGE sql VOLATILE AS $$
  SELECT CASE WHEN r.claimed_by = me
              THEN r.state = 'running' AND (r.claim_expires IS NULL OR r.claim_expires <= now_at)
              ELSE switchyard_claim_lapsed(r, now_at) END
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
-- goes idle with what was persisted, its cut is traced and announced; the
-- budget reservations whose turn no longer holds its run (they no longer
-- count: switchyard_reservation_live) and the rows of dead instances are
-- dropped. Returns how many runs were cut. Only the runs it cuts are locked,
-- in the order a claim batch locks them (its sessions' order): a live
-- instance's turns never wait for a start, and the two never deadlock (which
-- PostgreSQL would find only after `deadlock_timeout`, a second).
CREATE OR REPLACE FUNCTION switchyard_reap_instances(me text, now_at timestamptz, sole boolean)
RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  r runs;
  cut integer := 0;
BEGIN
  FOR r IN SELECT * FROM runs
           WHERE state = 'running' AND claimed_by IS DISTINCT FROM me
             AND (sole OR switchyard_claim_lapsed(runs, now_at))
           ORDER BY session_id, id
           FOR UPDATE LOOP
    UPDATE runs SET state = 'idle', pause = NULL, claimed_by = NULL, claim_expires = NULL,
                    supersede_seq = supersede_seq + 1, updated_at = now_at
    WHERE id = r.id;
    PERFORM switchyard_trace_lost_turn(r, now_at);
    PERFORM pg_notify('switchyard_supersede', r.id::text || ':' || (r.supersede_seq + 1)::text);
    cut := cut + 1;
  END LOOP;
  DELETE FROM budget_ledger l
  WHERE NOT l.spent AND l.instance IS DISTINCT FROM me
    AND NOT switchyard_reservation_live(l, now_at);
  DELETE FROM instances i
  WHERE i.id <> me AND (sole OR switchyard_instance_gone(i, now_at));
  INSERT INTO instances (id, heartbeat_at) VALUES (me, now_at)
  ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at;
  RETURN cut;
END
$$;
