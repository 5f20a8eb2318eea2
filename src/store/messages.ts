/**
 * Session history. `content` is `{ plaintext: string }` or `{ encrypted:
 * <envelope> }` (decisions.md §8); `constrained` marks a message that carried
 * constrained content (decisions.md §6), `interrupted` a partial reply cut by
 * a supersede (decisions.md §7).
 */
import type { Queryable } from "./db.ts";

export interface StoredMessage {
  id: string;
  session_id: string;
  run_id: string | null;
  seq: number;
  role: string;
  content: Record<string, unknown>;
  provider: string | null;
  model: string | null;
  constrained: boolean;
  interrupted: boolean;
  created_at: Date;
}

const COLUMNS =
  "id, session_id, run_id, seq, role, content, provider, model, constrained, interrupted, created_at";

export interface NewMessage {
  id: string;
  sessionId: string;
  runId?: string | null;
  role: string;
  content: Record<string, unknown>;
  provider?: string | null;
  model?: string | null;
  constrained?: boolean;
  interrupted?: boolean;
  now: Date;
}

/**
 * Appends with the next `seq` of the session (1 for the first), taken from the
 * session's counter under its row lock, so a superseded instance persisting a
 * partial reply and the new turn persisting its prompt never take the same seq.
 */
export async function appendMessage(db: Queryable, m: NewMessage): Promise<StoredMessage> {
  const rows = await db.query<StoredMessage>(
    `WITH counter AS (
       UPDATE sessions SET last_message_seq = last_message_seq + 1 WHERE id = $2
       RETURNING last_message_seq
     )
     INSERT INTO messages (id, session_id, run_id, seq, role, content, provider, model,
                           constrained, interrupted, created_at)
     SELECT $1::uuid, $2::uuid, $3::uuid, last_message_seq, $4::text, $5::jsonb, $6::text,
            $7::text, $8::boolean, $9::boolean, $10::timestamptz
     FROM counter
     RETURNING ${COLUMNS}`,
    [
      m.id,
      m.sessionId,
      m.runId ?? null,
      m.role,
      JSON.stringify(m.content),
      m.provider ?? null,
      m.model ?? null,
      m.constrained ?? false,
      m.interrupted ?? false,
      m.now,
    ],
  );
  return rows[0];
}

/** The whole history of a session, oldest first, with the marks the engine needs. */
export async function listHistory(db: Queryable, sessionId: string): Promise<StoredMessage[]> {
  return await db.query<StoredMessage>(
    `SELECT ${COLUMNS} FROM messages WHERE session_id = $1 ORDER BY seq`,
    [sessionId],
  );
}

/** One message by its place in the session (content references `message:<seq>`). */
export async function findMessageBySeq(
  db: Queryable,
  sessionId: string,
  seq: number,
): Promise<StoredMessage | null> {
  const rows = await db.query<StoredMessage>(
    `SELECT ${COLUMNS} FROM messages WHERE session_id = $1 AND seq = $2`,
    [sessionId, seq],
  );
  return rows[0] ?? null;
}

/**
 * Replaces the content of a message, e.g. when the client returns the sealed
 * form of router-authored content (decisions.md §8). False when absent.
 */
export async function replaceMessageContent(
  db: Queryable,
  sessionId: string,
  seq: number,
  content: Record<string, unknown>,
): Promise<boolean> {
  const rows = await db.query(
    "UPDATE messages SET content = $3::jsonb WHERE session_id = $1 AND seq = $2 RETURNING id",
    [sessionId, seq, JSON.stringify(content)],
  );
  return rows.length > 0;
}
