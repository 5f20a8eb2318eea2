-- When a user's budget was last removed (decisions.md §13: a budget given,
-- removed and given again counts the window's real spend). While a user has
-- no budget its calls write nothing to the budget ledger (no round trip for
-- them); a budget given again starts from what the usage events recorded
-- since this instant, and the row goes.
CREATE TABLE budget_removals (
  user_id     uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  removed_at  timestamptz NOT NULL
);
