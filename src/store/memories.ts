/**
 * Memory (decisions.md §9): a user store that survives sessions and a session
 * store that dies with its session. `value` is `{ plaintext: ... }` or, for
 * session memory of an encrypted session, `{ encrypted: <envelope> }`.
 * Recording a key replaces it.
 */
import type { Queryable } from "./db.ts";

/** `sessionId` null: the user store. */
export interface MemoryScope {
  userId: string;
  sessionId: string | null;
}

export interface MemoryRow {
  id: string;
  user_id: string;
  session_id: string | null;
  key: string;
  value: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = "id, user_id, session_id, key, value, created_at, updated_at";

/** Entries recalled into the preamble per store. */
export const RECALL_LIMIT = 40;

/** Records `key` in the scope, replacing an earlier value (the id and created_at of the first stay). */
export async function recordMemory(
  db: Queryable,
  m: MemoryScope & { id: string; key: string; value: Record<string, unknown>; now: Date },
): Promise<MemoryRow> {
  // The partial unique index of each store is the conflict target.
  const target = m.sessionId === null
    ? "(user_id, key) WHERE session_id IS NULL"
    : "(session_id, key) WHERE session_id IS NOT NULL";
  const rows = await db.query<MemoryRow>(
    `INSERT INTO memories (id, user_id, session_id, key, value, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6, $6)
     ON CONFLICT ${target}
     DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
     RETURNING ${COLUMNS}`,
    [m.id, m.userId, m.sessionId, m.key, JSON.stringify(m.value), m.now],
  );
  return rows[0];
}

/** Removes `key` from the scope; false when it was not there. */
export async function forgetMemory(
  db: Queryable,
  m: MemoryScope & { key: string },
): Promise<boolean> {
  const rows = await db.query(
    `DELETE FROM memories
     WHERE user_id = $1 AND session_id IS NOT DISTINCT FROM $2::uuid AND key = $3
     RETURNING id`,
    [m.userId, m.sessionId, m.key],
  );
  return rows.length > 0;
}

/** The scope's entries, most recently recorded first, at most `limit` (40 by default). */
export async function listMemories(
  db: Queryable,
  scope: MemoryScope,
  limit = RECALL_LIMIT,
): Promise<MemoryRow[]> {
  return await db.query<MemoryRow>(
    `SELECT ${COLUMNS} FROM memories
     WHERE user_id = $1 AND session_id IS NOT DISTINCT FROM $2::uuid
     ORDER BY updated_at DESC, id DESC LIMIT $3`,
    [scope.userId, scope.sessionId, limit],
  );
}

/** Both stores for one model call (decisions.md §9). */
export async function recallMemories(
  db: Queryable,
  userId: string,
  sessionId: string,
): Promise<{ user: MemoryRow[]; session: MemoryRow[] }> {
  // One round trip for both stores: this runs before every model call.
  const rows = await db.query<MemoryRow>(
    `SELECT ${COLUMNS} FROM (
       (SELECT ${COLUMNS} FROM memories WHERE user_id = $1 AND session_id IS NULL
        ORDER BY updated_at DESC, id DESC LIMIT $3)
       UNION ALL
       (SELECT ${COLUMNS} FROM memories WHERE user_id = $1 AND session_id = $2
        ORDER BY updated_at DESC, id DESC LIMIT $3)
     ) AS recalled
     ORDER BY session_id IS NULL DESC, updated_at DESC, id DESC`,
    [userId, sessionId, RECALL_LIMIT],
  );
  return {
    user: rows.filter((r) => r.session_id === null),
    session: rows.filter((r) => r.session_id !== null),
  };
}

/** Replaces a session memory value by the envelope the client sealed it into (decisions.md §8). */
export async function sealMemoryValue(
  db: Queryable,
  sessionId: string,
  id: string,
  envelope: Record<string, unknown>,
): Promise<boolean> {
  const rows = await db.query(
    `UPDATE memories SET value = $3::jsonb WHERE session_id = $1 AND id::text = $2 RETURNING id`,
    [sessionId, id, JSON.stringify({ encrypted: envelope })],
  );
  return rows.length > 0;
}
