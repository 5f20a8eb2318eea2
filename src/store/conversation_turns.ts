/**
 * Which session a compatible surface's conversation belongs to (decisions.md
 * §12), by the digest of the conversation as answered. A turn records its
 * conversation with its other records (turn_writes.ts, in the same statement);
 * deleting the session forgets its conversations.
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
