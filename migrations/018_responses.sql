-- The stored responses of OpenAI's Responses API surface (decisions.md §14):
-- a response made with `store: true` is retrievable by its owner, by id, with
-- the items it was given (`input_items`). Each row keeps its own items only
-- and names the response it continued (`previous_id`), so a chain is read by
-- walking back from its last response and a long chain stores each turn once.
-- A deleted response that a later one continues stays, hidden (`deleted`), as
-- that later response's context; one nothing continues is removed. Written
-- with the turn's records in the statement that ends the turn; deleting the
-- session forgets its responses.
CREATE TABLE responses (
  id           text PRIMARY KEY,
  user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  session_id   uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  previous_id  text,
  response     jsonb NOT NULL,
  input_items  jsonb NOT NULL,
  deleted      boolean NOT NULL DEFAULT false,
  created_at   timestamptz NOT NULL
);
CREATE INDEX responses_user_idx ON responses (user_id);
CREATE INDEX responses_session_idx ON responses (session_id);
CREATE INDEX responses_previous_idx ON responses (previous_id) WHERE previous_id IS NOT NULL;
