-- The reservations of the budget ledger (its rows not yet spent) by time: a
-- starting instance deletes those whose turn no longer holds its run, left by
-- an instance that stopped before settling them (functions/instances.sql),
-- without reading the spent rows of every month.
CREATE INDEX budget_ledger_reserved ON budget_ledger (at) WHERE NOT spent;
