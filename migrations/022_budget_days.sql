-- Each user's settled spend by UTC day (decisions.md §13 windows are UTC
-- calendar days and months): a call's admission sums at most a month of these
-- rows, where summing the ledger's settled rows of the month grew with every
-- call the user made (5 ms an admission at 20,000 calls). A trigger keeps the
-- rows from the ledger's, so every writer of the ledger stays as it was.
CREATE TABLE budget_days (
  user_id  uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  day      date NOT NULL,
  spent    numeric NOT NULL,
  PRIMARY KEY (user_id, day)
);
INSERT INTO budget_days (user_id, day, spent)
SELECT user_id, (at AT TIME ZONE 'UTC')::date, sum(amount)
FROM budget_ledger WHERE spent
GROUP BY 1, 2;

-- A user's reservations, which an admission sums without reading the spent rows.
CREATE INDEX budget_ledger_user_reserved ON budget_ledger (user_id) WHERE NOT spent;

CREATE FUNCTION switchyard_budget_days_keep() RETURNS trigger
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
CREATE TRIGGER budget_ledger_days AFTER INSERT OR UPDATE OR DELETE ON budget_ledger
FOR EACH ROW EXECUTE FUNCTION switchyard_budget_days_keep();
