-- Budgets (decisions.md §13): the admission of a model call against its
-- user's budget, and which reservations of the ledger still count.
-- Repeatable: the current definition of every function below, applied after
-- the numbered migrations whenever this file's content changes (migrate.ts).
-- Change a function here, never in a new numbered migration; a change
-- CREATE OR REPLACE cannot make (a new return type, a dropped function) goes
-- with a numbered migration that drops the old one first.

-- Whether a reservation still counts at `now_at`: until its call settles (the
-- row turns spent) or its instance is proven gone: its liveness lock held by
-- no one (PostgreSQL) once the locks have settled after the server's start
-- (switchyard_locks_settled), or, for an instance without a lock (the embedded
-- store), its heartbeat older than three seconds. Never merely because the
-- instance is slow: a stopped process keeps its connection, so its lock, and
-- its calls may still end and settle. A reservation whose instance has no row
-- (never registered, or reaped once its reservations were) counts while its
-- turn holds its run. VOLATILE: it tries a holder's liveness lock.
CREATE OR REPLACE FUNCTION switchyard_reservation_live(l budget_ledger, now_at timestamptz) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  i instances;
BEGIN
  SELECT * INTO i FROM instances WHERE id = l.instance;
  IF FOUND THEN
    IF i.liveness_lock IS NOT NULL THEN
      RETURN NOT switchyard_locks_settled(now_at)
             OR NOT pg_try_advisory_xact_lock_shared(i.liveness_lock);
    END IF;
    RETURN i.heartbeat_at > now_at - interval '3 seconds';
  END IF;
  RETURN EXISTS (SELECT 1 FROM runs r
                 WHERE r.id = l.run_id AND r.current_turn = l.turn_id AND r.state = 'running'
                   AND NOT switchyard_claim_lapsed(r, now_at));
END
$$;

-- A model call's admission as one statement (decisions.md §13): lock the
-- user's budget row, so the admissions of one user are serialised across
-- instances (each reads what the one before it committed); sum the day's and
-- the month's spend and the live reservations; give the call the most output
-- tokens every window with a limit can pay for after its input cost, at most
-- `max_output`; refuse when that is fewer than `floor`, else insert the
-- reservation of its most possible cost (input cost + the output limit priced
-- as output). Answers `{ budget: false }` for a user without a budget
-- (nothing is written), else the figures, `admitted`, the window that refused
-- or limited the call (`window`; the tighter one, daily on a tie) and the
-- output limit given (`output_tokens`).
CREATE OR REPLACE FUNCTION switchyard_budget_admit(a jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  of_user uuid := (a ->> 'user_id')::uuid;
  now_at timestamptz := (a ->> 'now')::timestamptz;
  day_from timestamptz := (a ->> 'day_from')::timestamptz;
  day_to timestamptz := (a ->> 'day_to')::timestamptz;
  month_from timestamptz := (a ->> 'month_from')::timestamptz;
  month_to timestamptz := (a ->> 'month_to')::timestamptz;
  cost numeric := (a ->> 'amount')::numeric;
  per_token numeric := coalesce((a ->> 'output_price')::numeric, 0) / 1000000;
  max_output bigint := coalesce((a ->> 'max_output')::bigint, 0);
  floor_tokens bigint := least(coalesce((a ->> 'floor')::bigint, 0), max_output);
  b user_budgets;
  day_spent numeric;
  month_spent numeric;
  held numeric;
  day_left numeric;
  month_left numeric;
  left_over numeric;
  tight text;
  granted bigint;
BEGIN
  SELECT * INTO b FROM user_budgets WHERE user_id = of_user FOR UPDATE;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('budget', false);
  END IF;
  -- One statement, so one snapshot: a call settled meanwhile counts once, as
  -- spent or as reserved. The windows are whole UTC days (budget_days).
  SELECT spend.day_spent, spend.month_spent, reserved.held
  INTO day_spent, month_spent, held
  FROM (SELECT coalesce(sum(d.spent) FILTER (WHERE d.day >= (day_from AT TIME ZONE 'UTC')::date
                                                AND d.day < (day_to AT TIME ZONE 'UTC')::date), 0)
                 AS day_spent,
               coalesce(sum(d.spent), 0) AS month_spent
        FROM budget_days d
        WHERE d.user_id = of_user AND d.day >= (month_from AT TIME ZONE 'UTC')::date
          AND d.day < (month_to AT TIME ZONE 'UTC')::date) AS spend,
       (SELECT coalesce(sum(l.amount) FILTER (WHERE switchyard_reservation_live(l, now_at)), 0)
                 AS held
        FROM budget_ledger l
        WHERE l.user_id = of_user AND NOT l.spent) AS reserved;
  day_left := b.daily - day_spent - held - cost;
  month_left := b.monthly - month_spent - held - cost;
  IF day_left IS NOT NULL AND (month_left IS NULL OR day_left <= month_left) THEN
    tight := 'daily';
    left_over := day_left;
  ELSIF month_left IS NOT NULL THEN
    tight := 'monthly';
    left_over := month_left;
  END IF;
  IF left_over IS NULL THEN
    granted := max_output;
  ELSIF left_over < 0 THEN
    granted := -1;
  ELSIF per_token = 0 THEN
    granted := max_output;
  ELSE
    granted := least(max_output, floor(left_over / per_token)::bigint);
  END IF;
  IF granted >= floor_tokens AND granted >= 0 THEN
    INSERT INTO budget_ledger (id, user_id, spent, amount, instance, run_id, turn_id, at)
    VALUES ((a ->> 'id')::uuid, of_user, false, cost + granted * per_token, a ->> 'instance',
            (a ->> 'run_id')::uuid, (a ->> 'turn_id')::uuid, now_at);
  END IF;
  RETURN jsonb_build_object(
    'budget', true,
    'admitted', granted >= floor_tokens AND granted >= 0,
    'window', tight,
    'output_tokens', greatest(granted, 0),
    'daily', b.daily::text,
    'monthly', b.monthly::text,
    'day_spent', day_spent::text,
    'month_spent', month_spent::text,
    'reserved', held::text);
END
$$;

-- Keeps `budget_days` (migration 022) as the ledger's settled rows summed by
-- user and UTC day: the trigger `budget_ledger_days` calls it for every row
-- written, changed or deleted, so no writer of the ledger has to.
CREATE OR REPLACE FUNCTION switchyard_budget_days_keep() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD.spent THEN
    UPDATE budget_days SET spent = spent - OLD.amount
    WHERE user_id = OLD.user_id AND day = (OLD.at AT TIME ZONE 'UTC')::date;
  END IF;
  IF TG_OP <> 'DELETE' AND NEW.spent THEN
    INSERT INTO budget_days (user_id, day, spent)
    VALUES (NEW.user_id, (NEW.at AT TIME ZONE 'UTC')::date, NEW.amount)
    ON CONFLICT (user_id, day) DO UPDATE SET spent = budget_days.spent + excluded.spent;
  END IF;
  RETURN NULL;
END
$$;
