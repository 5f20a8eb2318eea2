-- Keys and an operator (decisions.md §13). A user has any number of API keys,
-- each found by its user (the key carries the user id) and told apart by its
-- SHA-256 digest; a key is revoked, never deleted, so its tokens can be
-- refused by the same lookup that finds them. The key a user already has
-- becomes its first, named 'bootstrap', with the user's own id as its key id
-- (unique, since there was one per user): existing keys and tokens keep working.
ALTER TABLE api_keys DROP CONSTRAINT api_keys_pkey;
ALTER TABLE api_keys
  ADD COLUMN id uuid,
  ADD COLUMN name text NOT NULL DEFAULT 'bootstrap',
  ADD COLUMN expires_at timestamptz,
  ADD COLUMN revoked_at timestamptz,
  ADD COLUMN last_used_at timestamptz;
UPDATE api_keys SET id = user_id;
ALTER TABLE api_keys ALTER COLUMN id SET NOT NULL;
ALTER TABLE api_keys ALTER COLUMN name DROP DEFAULT;
ALTER TABLE api_keys ADD PRIMARY KEY (id);
CREATE INDEX api_keys_user_idx ON api_keys (user_id, created_at, id);

-- The key a token was signed in with: revoking the key refuses the token.
ALTER TABLE tokens ADD COLUMN api_key_id uuid REFERENCES api_keys (id) ON DELETE CASCADE;
UPDATE tokens t SET api_key_id = t.user_id
  WHERE EXISTS (SELECT 1 FROM api_keys k WHERE k.id = t.user_id);

-- A user's name (set by the operator; null for a user made by bootstrap) and
-- whether the operator disabled it: while `disabled_at` is set, its keys and
-- tokens are refused, and enabling it again clears it.
ALTER TABLE users
  ADD COLUMN name text,
  ADD COLUMN disabled_at timestamptz;
