-- `matched_rule` of a trace event is a rule index (an integer) for classification
-- and a rule name (a string) for routing, and "present as null" must differ from
-- "absent" (decisions.md §4, §5). JSON keeps all three apart: SQL NULL means
-- the event has no such field, JSON null means no rule matched.
ALTER TABLE trace_events
  ALTER COLUMN matched_rule TYPE jsonb USING to_jsonb(matched_rule);
