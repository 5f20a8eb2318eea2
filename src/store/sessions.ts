import type { MessageRecord, SessionRecord } from "../core/session_view.ts";
import type { Queryable } from "./db.ts";
import { type SharedReads, sharedReads } from "./shared_reads.ts";

export interface SessionRow extends SessionRecord {
  user_id: string;
}

const COLUMNS = "id, user_id, title, scope, key_id, archived, metadata, created_at, updated_at";

export async function insertSession(
  db: Queryable,
  s: {
    id: string;
    userId: string;
    title: string;
    scope?: string;
    keyId?: string;
    metadata?: Record<string, unknown>;
    now: Date;
  },
): Promise<SessionRow> {
  const rows = await db.query<SessionRow>(
    `INSERT INTO sessions (id, user_id, title, scope, key_id, metadata, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, coalesce($7::jsonb, '{}'::jsonb), $6, $6) RETURNING ${COLUMNS}`,
    [
      s.id,
      s.userId,
      s.title,
      s.scope ?? null,
      s.keyId ?? null,
      s.now,
      s.metadata === undefined ? null : JSON.stringify(s.metadata),
    ],
  );
  return rows[0];
}

/**
 * A timestamp as `Date#toISOString` writes it: UTC, to the millisecond (a stored
 * microsecond is cut, as the drivers' Dates cut it).
 */
const isoTimestamp = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * One session as `sessionSummary` shows it, written as JSON text in SQL: the
 * same keys in the same order, `scope` and `key_id` only when present, no
 * whitespace. `concat` skips NULLs (an absent `scope` or `key_id` writes
 * nothing) and copies each piece once. `to_json` escapes a string exactly as
 * `JSON.stringify` does (the store holds no NUL and no unpaired surrogate:
 * unstorable_text.ts); a uuid needs no escaping.
 */
const SUMMARY_JSON = `concat(
  '{"id":"', id,
  '","title":', coalesce(to_json(title)::text, 'null'),
  CASE WHEN scope IS NOT NULL THEN ',"scope":' END, to_json(scope),
  CASE WHEN key_id IS NULL THEN ',"encrypted":false' ELSE ',"encrypted":true,"key_id":' END,
  to_json(key_id),
  ',"created_at":"', ${isoTimestamp("created_at")},
  '","updated_at":"', ${isoTimestamp("updated_at")},
  CASE WHEN archived THEN '","archived":true}' ELSE '","archived":false}' END)`;

/**
 * The caller's sessions, archived included, most recently updated first: the
 * JSON text of the array of their summaries (`sessionSummary`), byte for byte
 * what `JSON.stringify(rows.map(sessionSummary))` would write. The list is
 * whole (decisions.md §2), so it is built by the database in one text value,
 * sent as it is, rather than read as rows, made objects and serialized again.
 * The value is `text`, not `json`, so neither driver parses it.
 */
export function listSessions(
  db: Queryable,
  userId: string,
  filter: { scope?: string; title?: string },
): Promise<string> {
  let shared = sharedLists.get(db);
  if (shared === undefined) sharedLists.set(db, shared = sharedReads());
  const key = JSON.stringify([userId, filter.scope ?? null, filter.title ?? null]);
  return shared(key, () => readSessionsList(db, userId, filter));
}

/** A burst of one user's identical lists reads the list twice at most (shared_reads.ts). */
const sharedLists = new WeakMap<Queryable, SharedReads<string>>();

async function readSessionsList(
  db: Queryable,
  userId: string,
  filter: { scope?: string; title?: string },
): Promise<string> {
  const rows = await db.query<{ sessions: string }>(
    `SELECT concat('[', string_agg(${SUMMARY_JSON}, ',' ORDER BY updated_at DESC, id DESC), ']')
              AS sessions
     FROM sessions
     WHERE user_id = $1
       AND ($2::text IS NULL OR scope = $2)
       AND ($3::text IS NULL OR strpos(lower(coalesce(title, '')), lower($3)) > 0)`,
    [userId, filter.scope ?? null, filter.title ?? null],
  );
  return rows[0].sessions;
}

/** A session of this owner, archived or not; the caller decides what archived means. */
export async function findOwnedSession(
  db: Queryable,
  userId: string,
  id: string,
): Promise<SessionRow | null> {
  const rows = await db.query<SessionRow>(
    `SELECT ${COLUMNS} FROM sessions WHERE id = $1 AND user_id = $2`,
    [id, userId],
  );
  return rows[0] ?? null;
}

/**
 * An archived session is absent to everything but the update that restores it
 * (`archived: false`), so other updates of it find nothing.
 */
export async function updateSession(
  db: Queryable,
  userId: string,
  id: string,
  patch: { title?: string; archived?: boolean; now: Date },
): Promise<SessionRow | null> {
  const rows = await db.query<SessionRow>(
    `UPDATE sessions
     SET title = coalesce($3, title), archived = coalesce($4, archived), updated_at = $5
     WHERE id = $1 AND user_id = $2 AND (NOT archived OR $4 IS FALSE)
     RETURNING ${COLUMNS}`,
    [id, userId, patch.title ?? null, patch.archived ?? null, patch.now],
  );
  return rows[0] ?? null;
}

/**
 * Deletes a live session; its messages, runs, traces, usage and session memory
 * cascade. An archived one answers as absent, like every session endpoint but restore.
 */
export async function deleteSession(db: Queryable, userId: string, id: string): Promise<boolean> {
  const rows = await db.query(
    "DELETE FROM sessions WHERE id = $1 AND user_id = $2 AND NOT archived RETURNING id",
    [
      id,
      userId,
    ],
  );
  return rows.length > 0;
}

export async function listMessages(db: Queryable, sessionId: string): Promise<MessageRecord[]> {
  return await db.query<MessageRecord>(
    "SELECT role, content, provider, model FROM messages WHERE session_id = $1 ORDER BY seq",
    [sessionId],
  );
}
