-- The conversation key a compatible surface's client sends (decisions.md §12
-- "Which session": OpenAI's `prompt_cache_key`, the session part of Claude
-- Code's `metadata.user_id`): one session per user and key. The key is kept as
-- its SHA-256, a fixed-length name that says nothing of what the client sent.
-- A fork (the key's session had a turn in flight) is not mapped: the key keeps
-- naming the session it first named.
CREATE TABLE conversation_keys (
  user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  key_digest  text NOT NULL,
  session_id  uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL,
  PRIMARY KEY (user_id, key_digest)
);
CREATE INDEX conversation_keys_session ON conversation_keys (session_id);
