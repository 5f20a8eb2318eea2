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
-- admitted call inserts its row `reserved` with its input cost, its instance
-- and a lease; when the call ends the same row becomes `spent` with the call's
-- real cost, in one UPDATE, so at every instant the call counts exactly once.
-- A reservation counts while its lease runs and its instance beats (migration
-- 005: an instance whose row is older than three seconds is gone; one without
-- a row is judged by the lease alone), so a crashed instance's reservations
-- stop counting within seconds. Spent rows carry the cost even in encrypted
-- sessions, whose usage events keep no figures (decisions.md §8): a budget
-- holds there too, and the ledger names no session.
CREATE TABLE budget_ledger (
  id          uuid PRIMARY KEY,
  user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  spent       boolean NOT NULL DEFAULT false,
  amount      numeric NOT NULL CHECK (amount >= 0),
  instance    text,
  expires_at  timestamptz,
  at          timestamptz NOT NULL
);
CREATE INDEX budget_ledger_user_at ON budget_ledger (user_id, at);
