import type { Queryable } from "./db.ts";

/**
 * Creates a user together with its first API key's digest. The key's id
 * defaults to the user's (as for the keys migration 015 carried over).
 */
export async function insertUserWithKey(
  db: Queryable,
  user: {
    id: string;
    keyHash: string;
    now: Date;
    keyId?: string;
    /** The first key's name: `bootstrap` unless said otherwise. */
    keyName?: string;
    /** The user's name (the operator's users have one; bootstrap's have none). */
    name?: string | null;
  },
): Promise<void> {
  await db.query(
    `WITH u AS (INSERT INTO users (id, created_at, name) VALUES ($1, $3, $6) RETURNING id)
     INSERT INTO api_keys (id, user_id, name, secret_hash, created_at)
     SELECT $4, id, $5, $2, $3 FROM u`,
    [
      user.id,
      user.keyHash,
      user.now,
      user.keyId ?? user.id,
      user.keyName ?? "bootstrap",
      user.name ?? null,
    ],
  );
}

/** A user as the operator sees it (decisions.md §13); spend is summed from the usage events. */
export interface UserOverviewRow {
  id: string;
  name: string | null;
  created_at: Date;
  /** The last sign-in or API key use. */
  last_seen_at: Date | null;
  disabled: boolean;
  /** `numeric::text` of the cost since the start of the UTC day and month. */
  spend_day: string;
  spend_month: string;
}

/**
 * Every user (or the one `userId`), oldest first, with what it spent since
 * `dayStart` and since `monthStart` (the start of the UTC day and month, the
 * day within the month): the sum of its usage events' costs, unpriced ones
 * counting nothing. One statement.
 */
export async function listUserOverviews(
  db: Queryable,
  window: { dayStart: Date; monthStart: Date },
  userId: string | null = null,
): Promise<UserOverviewRow[]> {
  return await db.query<UserOverviewRow>(
    `SELECT u.id, u.name, u.created_at, u.disabled_at IS NOT NULL AS disabled,
            (SELECT max(k.last_used_at) FROM api_keys k WHERE k.user_id = u.id) AS last_seen_at,
            COALESCE(sp.day, 0)::text AS spend_day, COALESCE(sp.month, 0)::text AS spend_month
     FROM users u
     LEFT JOIN (
       SELECT s.user_id, sum(e.cost) FILTER (WHERE e.created_at >= $1) AS day,
              sum(e.cost) AS month
       FROM usage_events e JOIN sessions s ON s.id = e.session_id
       WHERE e.created_at >= $2 AND ($3::uuid IS NULL OR s.user_id = $3::uuid)
       GROUP BY s.user_id
     ) sp ON sp.user_id = u.id
     WHERE $3::uuid IS NULL OR u.id = $3::uuid
     ORDER BY u.created_at, u.id`,
    [window.dayStart, window.monthStart, userId],
  );
}

/**
 * Renames, disables or enables a user; an absent field is left as it is.
 * Disabling keeps the first time it was disabled. False when there is no such user.
 */
export async function updateUser(
  db: Queryable,
  userId: string,
  patch: { name?: string | null; disabled?: boolean },
  now: Date,
): Promise<boolean> {
  const rows = await db.query<{ id: string }>(
    `UPDATE users
     SET name = CASE WHEN $2::boolean THEN $3 ELSE name END,
         disabled_at = CASE WHEN $4::boolean IS NULL THEN disabled_at
                            WHEN $4::boolean THEN COALESCE(disabled_at, $5)
                            ELSE NULL END
     WHERE id = $1 RETURNING id`,
    [userId, patch.name !== undefined, patch.name ?? null, patch.disabled ?? null, now],
  );
  return rows.length === 1;
}
