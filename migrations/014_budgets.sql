-- Budgets (decisions.md §13): exact decimal USD limits per user, by UTC
-- calendar day and month, set by the operator. A user without a budget has no
-- row (a budget of two nulls is deleted), so "has a budget" is one index probe.
CREATE TABLE user_budgets (
  user_id     uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  daily       numeric CHECK (daily IS NULL OR daily >= 0),
  monthly     numeric CHECK (monthly IS NULL OR monthly >= 0),
  updated_at  timestamptz NOT NULL
);

-- The budget ledger: one row per model call of a user with a budget. An
-- admitted call inserts its row as a reservation (`spent` false) of its input
-- cost, naming its instance and the run and turn that hold the call; when the
-- call ends the same row becomes `spent` with the call's real cost, in one
-- statement, so at every instant the call counts exactly once. A reservation
-- counts while the turn holds its run (migration 005: the run is running with
-- that turn, its claim's lease has not run out and its instance beats), so a
-- crashed instance's reservations stop counting within seconds, with its
-- claims. Spent rows keep the cost even in encrypted sessions, whose usage
-- events keep no figures (decisions.md §8), and outlive deleted sessions: a
-- budget holds whatever the session. The ledger names no session.
CREATE TABLE budget_ledger (
  id          uuid PRIMARY KEY,
  user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  spent       boolean NOT NULL,
  amount      numeric NOT NULL CHECK (amount >= 0),
  instance    text,
  run_id      uuid,
  turn_id     uuid,
  at          timestamptz NOT NULL
);
CREATE INDEX budget_ledger_user_at ON budget_ledger (user_id, at);

-- Whether a reservation still counts at `now_at`: its turn holds its run.
CREATE FUNCTION switchyard_reservation_live(l budget_ledger, now_at timestamptz) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM runs r
                 WHERE r.id = l.run_id AND r.current_turn = l.turn_id AND r.state = 'running'
                   AND NOT switchyard_claim_lapsed(r, now_at))
$$;

-- A model call's admission (decisions.md §13) as one statement: lock the
-- user's budget row, so the admissions of one user are serialised across
-- instances (each statement below reads what the one before it committed);
-- sum the day's and the month's spend and the live reservations; refuse when
-- a window with a limit would pass it, else insert the reservation. Answers
-- `{ budget: false }` for a user without a budget (nothing is written), else
-- the figures and `admitted`, with the first window refused (daily first).
CREATE FUNCTION switchyard_budget_admit(a jsonb) RETURNS jsonb
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
