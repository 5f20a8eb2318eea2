-- The conversations the compatible surfaces answered (decisions.md §12): a
-- request whose earlier messages equal a recorded conversation (its messages
-- and the answer, by the SHA-256 of their canonical JSON) continues that
-- conversation's session. The latest turn of a conversation wins.
CREATE TABLE conversation_turns (
  user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  digest      text NOT NULL,
  session_id  uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL,
  PRIMARY KEY (user_id, digest)
);
CREATE INDEX conversation_turns_session ON conversation_turns (session_id);
