-- Prompt tokens a model call wrote to its provider's cache (Anthropic's cache
-- creation), beside `cached_tokens`, the ones it read from it: both are priced
-- apart from fresh input (decisions.md §15). NULL when the provider did not
-- report it, as every other count.
ALTER TABLE usage_events ADD COLUMN cache_write_tokens integer;
