-- `execute`'s admission (decisions.md §7): claiming a session's run.
-- Repeatable: the current definition of every function below, applied after
-- the numbered migrations whenever this file's content changes (migrate.ts).
-- Change a function here, never in a new numbered migration; a change
-- CREATE OR REPLACE cannot make (a new return type, a dropped function) goes
-- with a numbered migration that drops the old one first.

-- Why the bearer token `a` ({ token_id, secret_hash, user_id }) may not be
-- used at `now_at`, null when it may: as authenticate (src/http/auth.ts)
-- reads it. `invalid_token` for an unknown id, another secret or another
-- user; `token_revoked` when it, the API key it was signed in with, or its
-- user's account was revoked or disabled; `token_expired` past its expiry.
-- The digest compared is of a 64-character random secret, so comparing it
-- as text tells a caller nothing of the secret.
CREATE OR REPLACE FUNCTION switchyard_token_refusal(a jsonb, now_at timestamptz) RETURNS text
LANGUAGE plpgsql STABLE AS $$
DECLARE
  found record;
BEGIN
  SELECT t.user_id, t.secret_hash, t.expires_at,
         coalesce(t.revoked_at, k.revoked_at, u.disabled_at) AS revoked_at
  INTO found
  FROM tokens t JOIN users u ON u.id = t.user_id LEFT JOIN api_keys k ON k.id = t.api_key_id
  WHERE t.id = (a ->> 'token_id')::uuid;
  IF found.user_id IS NULL OR found.secret_hash IS DISTINCT FROM a ->> 'secret_hash'
     OR found.user_id IS DISTINCT FROM (a ->> 'user_id')::uuid THEN
    RETURN 'invalid_token';
  END IF;
  IF found.revoked_at IS NOT NULL THEN RETURN 'token_revoked'; END IF;
  IF found.expires_at <= now_at THEN RETURN 'token_expired'; END IF;
  RETURN NULL;
END
$$;

-- The claim as one statement: lock the session, refuse while a turn runs (its
-- claim neither expired nor held by a silent instance; the claiming instance
-- judges its own turns by their lease alone, instances.sql), supersede a run
-- awaiting the client and announce it (a running run whose claim lapsed goes
-- idle like a superseded turn, its cut traced), start the new run, cancel the
-- superseded pause's tool calls in the trace (with `c.cancelled_call` as the
-- payload template), store `c.records` (the prompt) and read what the turn
-- needs: history (all of it, or after `c.read.after_seq` / `after_id` when the
-- request names them) and the recalled memory (turn_reads.sql). Four
-- statements on the common path:
--   1. the session's row lock, taken by bumping its message counter for the
--      prompt's messages (that UPDATE locks the row as FOR NO KEY UPDATE
--      would); a claim without messages locks it with FOR NO KEY UPDATE;
--   2. the live run, locked (a statement of its own: under READ COMMITTED it
--      sees what a claim that held the session before it committed);
--   3. the new run, the prompt's messages and trace events and the turn's
--      reading, in one statement (the reading sees the history as it was
--      before this claim's writes; no one else appends to a session whose row
--      is locked);
--   4. on a refusal only, the counter's bump given back.
-- The claim, the one writer of runs, holds the session's row and fails with
-- SQLSTATE 23503 when it is missing, as the run's foreign key did.
--
-- With `c.auth` ({ token_id, secret_hash, user_id }: the bearer token's id,
-- the SHA-256 digest of its secret, never the secret, and the user the
-- instance took it for) the claim is also the request's authentication: it
-- checks the token first (switchyard_token_refusal) and then claims only a
-- live plaintext session of that user, so a turn reads nothing before it.
-- Anything else answers { kind: 'refused', reason } with nothing locked or
-- written: the caller then authenticates as any other request does, which
-- says why (run_admission.ts).
CREATE OR REPLACE FUNCTION switchyard_claim_execute(c jsonb) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  claimed_session uuid := (c ->> 'session_id')::uuid;
  now_at timestamptz := (c ->> 'now')::timestamptz;
  messages jsonb := coalesce(c -> 'records' -> 'messages', '[]'::jsonb);
  n integer := jsonb_array_length(coalesce(c -> 'records' -> 'messages', '[]'::jsonb));
  owner uuid := (c -> 'auth' ->> 'user_id')::uuid;
  refusal text;
  before integer;
  live runs;
  bumped integer;
  cancelled jsonb := '[]'::jsonb;
  answer json;
BEGIN
  IF c ? 'auth' THEN
    refusal := switchyard_token_refusal(c -> 'auth', now_at);
    IF refusal IS NOT NULL THEN
      RETURN json_build_object('kind', 'refused', 'reason', refusal);
    END IF;
  END IF;
  -- With `auth`, only the token's user's live plaintext session is taken.
  IF n > 0 THEN
    UPDATE sessions SET last_message_seq = last_message_seq + n
    WHERE id = claimed_session
      AND (owner IS NULL OR (user_id = owner AND NOT archived AND key_id IS NULL))
    RETURNING last_message_seq - n INTO before;
  ELSE
    SELECT last_message_seq INTO before FROM sessions
    WHERE id = claimed_session
      AND (owner IS NULL OR (user_id = owner AND NOT archived AND key_id IS NULL))
    FOR NO KEY UPDATE;
  END IF;
  IF before IS NULL AND owner IS NOT NULL THEN
    RETURN json_build_object('kind', 'refused', 'reason', 'session');
  END IF;
  IF before IS NULL THEN
    RAISE EXCEPTION 'the session of a run is not there' USING ERRCODE = 'foreign_key_violation';
  END IF;
  SELECT * INTO live FROM runs
  WHERE runs.session_id = claimed_session
    AND state IN ('running', 'awaiting_client') FOR UPDATE;
  IF live.id IS NOT NULL AND live.state = 'running'
     AND NOT switchyard_claim_lapsed(live, now_at, c ->> 'instance') THEN
    IF n > 0 THEN
      UPDATE sessions SET last_message_seq = last_message_seq - n WHERE id = claimed_session;
    END IF;
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
    -- Only a run awaiting the client has calls pending: a running one was
    -- continued, its pause (kept for the continuation's check) already answered.
    IF c ? 'cancelled_call' AND live.state = 'awaiting_client'
       AND live.pause ->> 'kind' = 'tool' THEN
      SELECT coalesce(jsonb_agg(jsonb_set(c -> 'cancelled_call', '{payload,plaintext}',
                                          (c -> 'cancelled_call' -> 'payload' -> 'plaintext')
                                          || jsonb_build_object('call_id', p ->> 'call_id',
                                                                'tool_name', p ->> 'name'))
                                ORDER BY ord), '[]'::jsonb)
      INTO cancelled
      FROM jsonb_array_elements(live.pause -> 'calls') WITH ORDINALITY AS t (p, ord);
    END IF;
  END IF;
  -- The cancelled calls come first in the trace, then the prompt's records.
  -- A message of another session gets no `seq` and fails the claim, as
  -- migration 008's append did.
  WITH claimed AS (
    INSERT INTO runs (id, session_id, state, run_input, current_turn, claimed_by, claim_expires,
                      created_at, updated_at)
    VALUES ((c ->> 'run_id')::uuid, claimed_session, 'running',
            coalesce(c -> 'run_input', '{}'::jsonb), (c ->> 'turn_id')::uuid, c ->> 'instance',
            (c ->> 'lease_until')::timestamptz, now_at, now_at)
    -- Not the run input: the caller sent it (a whole conversation, on the compatible surfaces).
    RETURNING id, session_id, state, pause, current_turn, claimed_by, claim_expires,
              supersede_seq, created_at, updated_at
  ), messaged AS (
    INSERT INTO messages (id, session_id, run_id, seq, role, content, provider, model,
                          constrained, interrupted, created_at)
    SELECT (m ->> 'id')::uuid, (m ->> 'session_id')::uuid, (m ->> 'run_id')::uuid,
           CASE WHEN (m ->> 'session_id')::uuid = claimed_session THEN before + ord::integer END,
           m ->> 'role', m -> 'content', m ->> 'provider', m ->> 'model',
           (m ->> 'constrained')::boolean, (m ->> 'interrupted')::boolean,
           (m ->> 'created_at')::timestamptz
    FROM jsonb_array_elements(messages) WITH ORDINALITY AS t (m, ord)
    RETURNING seq
  ), traced AS (
    INSERT INTO trace_events (session_id, trace_id, event_type, task_type, provider, model,
                              matched_rule, payload, created_at)
    SELECT (e ->> 'session_id')::uuid, (e ->> 'trace_id')::uuid, e ->> 'event_type',
           e ->> 'task_type', e ->> 'provider', e ->> 'model', e -> 'matched_rule' -> 'v',
           CASE
             WHEN e ? 'message_index' THEN
               switchyard_message_payload(
                 e, to_jsonb(before + (e ->> 'message_index')::int + 1),
                 (messages -> (e ->> 'message_index')::int ->> 'interrupted')::boolean)
             ELSE e -> 'payload'
           END,
           (e ->> 'created_at')::timestamptz
    FROM jsonb_array_elements(cancelled || coalesce(c -> 'records' -> 'trace', '[]'::jsonb))
         WITH ORDINALITY AS t (e, ord)
    ORDER BY ord
  )
  SELECT json_build_object(
    'kind', 'claimed',
    'run', to_json(claimed),
    'superseded', CASE WHEN live.id IS NULL THEN NULL ELSE to_json(live) END,
    'message_seqs', (SELECT coalesce(jsonb_agg(seq ORDER BY seq), '[]'::jsonb) FROM messaged),
    'history', CASE
      WHEN c -> 'read' ? 'after_seq' THEN
        switchyard_history(claimed_session, claimed.id, (c -> 'read' ->> 'after_seq')::int,
                           (c -> 'read' ->> 'after_id')::uuid)
      WHEN c ? 'read' THEN switchyard_history(claimed_session, claimed.id) END,
    'memory', CASE WHEN c ? 'read' THEN
      switchyard_recall((c -> 'read' ->> 'user_id')::uuid, claimed_session,
                        (c ->> 'recall_limit')::int) END)
  INTO answer
  FROM claimed;
  RETURN answer;
END
$$;

-- Claims of many sessions in one transaction (an instance's claims that
-- arrive while its previous one is in flight, run_admission.ts), each answered
-- as `switchyard_claim_execute` answers it, in the request's order. Every
-- session's row is locked first, in id order, and only then any run, as the
-- group write locks its sessions before its runs: a batch and a write, or two
-- batches, wait for each other, never in a cycle (a batch that held one
-- session's run while it waited for the next session could meet a write that
-- holds that session and moves the run). Two claims of one session are taken
-- in the request's order: the second finds the first's run in flight. A claim
-- that fails fails the batch; the caller then claims one by one.
CREATE OR REPLACE FUNCTION switchyard_claim_executes(cs jsonb) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  answers json[] := '{}';
  k integer;
BEGIN
  PERFORM 1 FROM sessions
  WHERE id IN (SELECT (t.c ->> 'session_id')::uuid FROM jsonb_array_elements(cs) AS t (c))
  ORDER BY id
  FOR NO KEY UPDATE;
  FOR k IN SELECT t.i FROM jsonb_array_elements(cs) WITH ORDINALITY AS t (c, i)
           ORDER BY (t.c ->> 'session_id')::uuid, t.i
  LOOP
    answers[k] := switchyard_claim_execute(cs -> (k - 1));
  END LOOP;
  RETURN array_to_json(answers);
END
$$;
