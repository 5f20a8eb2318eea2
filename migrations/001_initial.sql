-- Switchyard schema, designed for the whole interface: later migrations add
-- columns, not rewrites. Secrets are stored only as SHA-256 hex digests.
-- Ids are UUIDv7 made by the service; times are passed in by the service clock.

CREATE TABLE users (
  id          uuid PRIMARY KEY,
  created_at  timestamptz NOT NULL
);

-- One long-lived key per bootstrap; found by user id (the key carries it).
CREATE TABLE api_keys (
  user_id      uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  secret_hash  text NOT NULL,
  created_at   timestamptz NOT NULL
);

-- Session tokens, found by their id (never by hash).
CREATE TABLE tokens (
  id           uuid PRIMARY KEY,
  user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  secret_hash  text NOT NULL,
  created_at   timestamptz NOT NULL,
  expires_at   timestamptz NOT NULL,
  revoked_at   timestamptz
);
CREATE INDEX tokens_user_idx ON tokens (user_id);

CREATE TABLE sessions (
  id          uuid PRIMARY KEY,
  user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  title       text,
  scope       text,
  key_id      text,              -- present exactly for end-to-end encrypted sessions
  archived    boolean NOT NULL DEFAULT false,
  metadata    jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at  timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL
);
CREATE INDEX sessions_user_updated_idx ON sessions (user_id, updated_at DESC, id DESC);

-- A run is one user prompt carried to a terminal state. At most one run of a
-- session is live; the claim on it is one atomic statement on this table.
CREATE TABLE runs (
  id             uuid PRIMARY KEY,
  session_id     uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  state          text NOT NULL CHECK (state IN ('idle', 'running', 'awaiting_client', 'error')),
  -- what the run waits for while awaiting_client (tool calls, approvals, decrypt/encrypt)
  pause          jsonb,
  -- input kept across pauses (plaintext session) or envelopes (encrypted session)
  run_input      jsonb NOT NULL DEFAULT '{}'::jsonb,
  current_turn   uuid,
  claimed_by     text,           -- instance holding the in-flight turn
  claim_expires  timestamptz,    -- a crashed instance's claim lapses
  supersede_seq  integer NOT NULL DEFAULT 0,  -- bumped by break/inject; streaming instances watch it
  created_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL
);
CREATE INDEX runs_session_idx ON runs (session_id, created_at DESC);
-- at most one live run per session
CREATE UNIQUE INDEX runs_one_live_per_session ON runs (session_id)
  WHERE state IN ('running', 'awaiting_client');

-- Session history. `content` is {"plaintext": ...} or {"encrypted": <envelope>}.
CREATE TABLE messages (
  id           uuid PRIMARY KEY,
  session_id   uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  run_id       uuid REFERENCES runs (id) ON DELETE SET NULL,
  seq          integer NOT NULL,
  role         text NOT NULL,
  content      jsonb NOT NULL,
  provider     text,
  model        text,
  constrained  boolean NOT NULL DEFAULT false,  -- carried constrained content (decisions.md §6)
  interrupted  boolean NOT NULL DEFAULT false,
  created_at   timestamptz NOT NULL,
  UNIQUE (session_id, seq)
);

-- Router-authored or client-sealed content addressed by content reference (kind:id).
CREATE TABLE sealed_content (
  session_id  uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  ref         text NOT NULL,
  envelope    jsonb NOT NULL,
  created_at  timestamptz NOT NULL,
  PRIMARY KEY (session_id, ref)
);

-- One growing trace per session; `payload` is {"plaintext": ...} or {"encrypted": ...}.
CREATE TABLE trace_events (
  seq           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  session_id    uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  trace_id      uuid NOT NULL,
  event_type    text NOT NULL,
  task_type     text,
  provider      text,
  model         text,
  matched_rule  text,
  payload       jsonb NOT NULL,
  created_at    timestamptz NOT NULL
);
CREATE INDEX trace_events_session_idx ON trace_events (session_id, seq);

-- Cost events, the source of the usage report. Unreported counts stay NULL.
CREATE TABLE usage_events (
  seq            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  session_id     uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  trace_id       uuid NOT NULL,
  provider       text NOT NULL,
  model          text NOT NULL,
  task_type      text NOT NULL,
  input_tokens   integer,
  output_tokens  integer,
  cached_tokens  integer,
  reasoning_tokens integer,
  cost           numeric,        -- NULL when the model declares no prices
  currency       text NOT NULL DEFAULT 'USD',
  sealed         boolean NOT NULL DEFAULT false,
  created_at     timestamptz NOT NULL
);
CREATE INDEX usage_events_session_idx ON usage_events (session_id, seq);

-- Approvals recorded for a session (tool `decision`s, remote disclosure, cost limit, plan).
CREATE TABLE approvals (
  id           uuid PRIMARY KEY,
  session_id   uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  run_id       uuid REFERENCES runs (id) ON DELETE SET NULL,
  target_type  text NOT NULL,
  target_id    text NOT NULL,
  decision     text NOT NULL CHECK (decision IN ('approved', 'rejected')),
  reason       text,
  created_at   timestamptz NOT NULL
);
CREATE INDEX approvals_session_idx ON approvals (session_id);

-- Memory: user scope survives sessions (session_id NULL); session scope dies with the session.
CREATE TABLE memories (
  id          uuid PRIMARY KEY,
  user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  session_id  uuid REFERENCES sessions (id) ON DELETE CASCADE,
  key         text NOT NULL,
  value       jsonb NOT NULL,    -- {"plaintext": ...} or {"encrypted": ...}
  created_at  timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL
);
CREATE UNIQUE INDEX memories_user_key ON memories (user_id, key) WHERE session_id IS NULL;
CREATE UNIQUE INDEX memories_session_key ON memories (session_id, key) WHERE session_id IS NOT NULL;
