/**
 * Which session a compatible surface's conversation belongs to (decisions.md
 * §12), by the digest of the conversation as answered. Deleting the session
 * forgets its conversations.
 */
import type { Queryable } from "./db.ts";

/** The session whose recorded conversation has this digest; null when none of the user's has. */
export async function findConversationSession(
  db: Queryable,
  userId: string,
  digest: string,
): Promise<string | null> {
  const rows = await db.query<{ session_id: string }>(
    "SELECT session_id FROM conversation_turns WHERE user_id = $1 AND digest = $2",
    [userId, digest],
  );
  return rows[0]?.session_id ?? null;
}

/** Records a conversation as answered in a session; a later turn with the same digest wins. */
export async function recordConversation(
  db: Queryable,
  c: { userId: string; digest: string; sessionId: string; now: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO conversation_turns (user_id, digest, session_id, created_at)
     VALUES ($1, $2, $3, $4)
     ON CONFLICT (user_id, digest) DO UPDATE SET session_id = $3, created_at = $4`,
    [c.userId, c.digest, c.sessionId, c.now],
  );
}
