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

-- The functions that admit a call and tell a live reservation
-- (switchyard_budget_admit, switchyard_reservation_live) are defined in
-- migrations/functions/budgets.sql, applied after the numbered migrations.
