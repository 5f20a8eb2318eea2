import type { Queryable } from "./db.ts";

export interface TokenRow {
  id: string;
  user_id: string;
  secret_hash: string;
  expires_at: Date;
  revoked_at: Date | null;
}

export async function insertToken(
  db: Queryable,
  token: { id: string; userId: string; secretHash: string; now: Date; expiresAt: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO tokens (id, user_id, secret_hash, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5)`,
    [token.id, token.userId, token.secretHash, token.now, token.expiresAt],
  );
}

export async function findToken(db: Queryable, id: string): Promise<TokenRow | null> {
  const rows = await db.query<TokenRow>(
    "SELECT id, user_id, secret_hash, expires_at, revoked_at FROM tokens WHERE id = $1",
    [id],
  );
  return rows[0] ?? null;
}

/** Revokes once; a second sign-out with the same token never reaches here (it is already revoked). */
export async function revokeToken(db: Queryable, id: string, now: Date): Promise<void> {
  await db.query(
    "UPDATE tokens SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL",
    [id, now],
  );
}
