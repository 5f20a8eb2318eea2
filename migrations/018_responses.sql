-- The stored responses of OpenAI's Responses API surface (decisions.md §14):
-- a response made with `store: true` is retrievable by its owner, by id, with
-- the items it was given (`input_items`) and the whole conversation it ended
-- (`items`: the earlier responses' items, its own input and its output), which
-- `previous_response_id` continues and `item_reference` resolves against.
-- Written with the turn's records in the statement that ends the turn;
-- deleting the session forgets its responses.
CREATE TABLE responses (
  id           text PRIMARY KEY,
  user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  session_id   uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  response     jsonb NOT NULL,
  input_items  jsonb NOT NULL,
  items        jsonb NOT NULL,
  created_at   timestamptz NOT NULL
);
CREATE INDEX responses_user_idx ON responses (user_id);
CREATE INDEX responses_session_idx ON responses (session_id);
