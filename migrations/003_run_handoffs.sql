-- A turn of an encrypted session cut by a `break` or `inject` hands its partial
-- reply and in-memory run input to the request that cut it, which may be on
-- another instance. Nothing readable may be stored (decisions.md §8), so the
-- superseding request puts an ephemeral ECDH public key here in the same
-- transaction that bumps `supersede_seq`; the superseded turn seals its
-- hand-off to that key; the private key never leaves the superseding
-- request's memory, and the row is deleted once read or given up on.
CREATE TABLE run_handoffs (
  run_id         uuid NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  seq            integer NOT NULL,   -- the supersede_seq the superseding request set
  recipient_key  text NOT NULL,      -- base64 raw P-256 public key of the superseding request
  sender_key     text,               -- base64 raw P-256 public key of the superseded turn
  iv             text,
  sealed         text,               -- base64 AES-256-GCM ciphertext of the hand-off
  created_at     timestamptz NOT NULL,
  PRIMARY KEY (run_id, seq)
);
CREATE INDEX run_handoffs_created ON run_handoffs (created_at);
