/**
 * A user's API keys (decisions.md §13): any number per user, each stored as
 * the SHA-256 digest of its secret, revoked rather than deleted so the tokens
 * it signed in stay refused. A key is found through its user (the key carries
 * the user id), so sign-in reads the user's usable keys and compares the
 * presented digest with each.
 */
import type { Queryable } from "./db.ts";

/** What the keys list shows: never the digest. */
export interface ApiKeyRow {
  id: string;
  name: string;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
}

/** A key that may still sign in: not revoked, its user not disabled (expiry is the caller's). */
export interface UsableKey {
  id: string;
  secret_hash: string;
  expires_at: Date | null;
  last_used_at: Date | null;
}

/** At most this many keys of a user are live (not revoked) at once. */
export const MAX_LIVE_KEYS = 100;

/** Adds a key; false (and nothing stored) when the user already has `MAX_LIVE_KEYS` live keys. */
export async function insertApiKey(
  db: Queryable,
  key: {
    id: string;
    userId: string;
    name: string;
    keyHash: string;
    now: Date;
    expiresAt: Date | null;
  },
): Promise<boolean> {
  const rows = await db.query<{ id: string }>(
    `INSERT INTO api_keys (id, user_id, name, secret_hash, created_at, expires_at)
     SELECT $1, $2, $3, $4, $5, $6
     WHERE (SELECT count(*) FROM api_keys WHERE user_id = $2 AND revoked_at IS NULL) < $7
     RETURNING id`,
    [key.id, key.userId, key.name, key.keyHash, key.now, key.expiresAt, MAX_LIVE_KEYS],
  );
  return rows.length === 1;
}

/** The user's keys that are not revoked, none when the user is disabled or unknown. */
export async function findUsableKeys(db: Queryable, userId: string): Promise<UsableKey[]> {
  return await db.query<UsableKey>(
    `SELECT k.id, k.secret_hash, k.expires_at, k.last_used_at
     FROM api_keys k JOIN users u ON u.id = k.user_id
     WHERE k.user_id = $1 AND k.revoked_at IS NULL AND u.disabled_at IS NULL`,
    [userId],
  );
}

export async function listApiKeys(db: Queryable, userId: string): Promise<ApiKeyRow[]> {
  return await db.query<ApiKeyRow>(
    `SELECT id, name, created_at, last_used_at, expires_at, revoked_at
     FROM api_keys WHERE user_id = $1 ORDER BY created_at, id`,
    [userId],
  );
}

/**
 * Revokes one of the user's keys (a second revocation keeps the first time).
 * False when the user has no such key.
 */
export async function revokeApiKey(
  db: Queryable,
  userId: string,
  keyId: string,
  now: Date,
): Promise<boolean> {
  const rows = await db.query<{ id: string }>(
    `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $3)
     WHERE id = $1 AND user_id = $2 RETURNING id`,
    [keyId, userId, now],
  );
  return rows.length === 1;
}

/** Records a key's use (the compatible surfaces call it at most once a minute per key). */
export async function touchApiKey(db: Queryable, keyId: string, now: Date): Promise<void> {
  await db.query("UPDATE api_keys SET last_used_at = $2 WHERE id = $1", [keyId, now]);
}
