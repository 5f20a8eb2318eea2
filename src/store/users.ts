import type { Queryable } from "./db.ts";

/** Creates a user together with its API key digest. */
export async function insertUserWithKey(
  db: Queryable,
  user: { id: string; keyHash: string; now: Date },
): Promise<void> {
  await db.query(
    `WITH u AS (INSERT INTO users (id, created_at) VALUES ($1, $3) RETURNING id)
     INSERT INTO api_keys (user_id, secret_hash, created_at) SELECT id, $2, $3 FROM u`,
    [user.id, user.keyHash, user.now],
  );
}

export async function findApiKeyHash(db: Queryable, userId: string): Promise<string | null> {
  const rows = await db.query<{ secret_hash: string }>(
    "SELECT secret_hash FROM api_keys WHERE user_id = $1",
    [userId],
  );
  return rows[0]?.secret_hash ?? null;
}
