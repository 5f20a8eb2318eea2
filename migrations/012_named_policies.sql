-- Named policies (decisions.md §12): a user stores a policy under a name; each
-- store is a new immutable version of that name, numbered from 1. The policy is
-- the validated object with its defaults filled in, kept as `json` (not
-- `jsonb`) so its keys keep their order: the order of a routing rule's
-- permissions decides which loosening is reported first, and a policy read back
-- reads as it was sent. Names sort by code unit (COLLATE "C") on every server,
-- whatever its default collation.
CREATE TABLE policies (
  user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name        text COLLATE "C" NOT NULL,
  version     integer NOT NULL CHECK (version >= 1),
  policy      json NOT NULL,
  created_at  timestamptz NOT NULL,
  PRIMARY KEY (user_id, name, version)
);
