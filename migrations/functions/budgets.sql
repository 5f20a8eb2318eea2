-- Budgets (decisions.md §13): the admission of a model call against its
-- user's budget, and which reservations of the ledger still count.
-- Repeatable: the current definition of every function below, applied after
-- the numbered migrations whenever this file's content changes (migrate.ts).
-- Change a function here, never in a new numbered migration; a change
-- CREATE OR REPLACE cannot make (a new return type, a dropped function) goes
-- with a numbered migration that drops the old one first.

-- Whether a reservation still counts at `now_at`: its turn holds its run.
-- VOLATILE, as switchyard_claim_lapsed is: asking whether a holder is gone
-- tries its liveness lock (instances.sql).
CREATE OR REPLACE FUNCTION switchyard_reservation_live(l budget_ledger, now_at timestamptz) RETURNS boolean
LANGUAGE sql VOLATILE AS $$
  SELECT EXISTS (SELECT 1 FROM runs r
                 WHERE r.id = l.run_id AND r.current_turn = l.turn_id AND r.state = 'running'
                   AND NOT switchyard_claim_lapsed(r, now_at))
$$;

-- A model call's admission as one statement: lock the user's budget row, so
-- the admissions of one user are serialised across instances (each statement
-- below reads what the one before it committed); sum the day's and the
-- month's spend and the live reservations; refuse when a window with a limit
-- would pass it, else insert the reservation. Answers `{ budget: false }` for
-- a user without a budget (nothing is written), else the figures and
-- `admitted`, with the first window refused (daily first).
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
  b user_budgets;
  day_spent numeric;
  month_spent numeric;
  held numeric;
  refused text;
BEGIN
  SELECT * INTO b FROM user_budgets WHERE user_id = of_user FOR UPDATE;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('budget', false);
  END IF;
  SELECT coalesce(sum(l.amount) FILTER (WHERE l.spent AND l.at >= day_from AND l.at < day_to), 0),
         coalesce(sum(l.amount) FILTER (WHERE l.spent AND l.at >= month_from AND l.at < month_to), 0),
         coalesce(sum(l.amount) FILTER (WHERE NOT l.spent AND switchyard_reservation_live(l, now_at)), 0)
  INTO day_spent, month_spent, held
  FROM budget_ledger l
  WHERE l.user_id = of_user AND (NOT l.spent OR (l.at >= month_from AND l.at < month_to));
  IF b.daily IS NOT NULL AND day_spent + held + cost > b.daily THEN
    refused := 'daily';
  ELSIF b.monthly IS NOT NULL AND month_spent + held + cost > b.monthly THEN
    refused := 'monthly';
  END IF;
  IF refused IS NULL THEN
    INSERT INTO budget_ledger (id, user_id, spent, amount, instance, run_id, turn_id, at)
    VALUES ((a ->> 'id')::uuid, of_user, false, cost, a ->> 'instance', (a ->> 'run_id')::uuid,
            (a ->> 'turn_id')::uuid, now_at);
  END IF;
  RETURN jsonb_build_object(
    'budget', true,
    'admitted', refused IS NULL,
    'window', refused,
    'daily', b.daily::text,
    'monthly', b.monthly::text,
    'day_spent', day_spent::text,
    'month_spent', month_spent::text,
    'reserved', held::text);
END
$$;
