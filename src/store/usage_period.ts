/**
 * Usage across sessions (decisions.md §13): the usage events of every session
 * of some users in a period, oldest first, as core/usage_period.ts reports
 * them. Events of deleted sessions went with them, as their reports did.
 */
import type { DatedCostEvent } from "../core/usage_period.ts";
import type { Queryable } from "./db.ts";

export interface UserCostEvent extends DatedCostEvent {
  user_id: string;
}

/**
 * The events recorded in `[from, to)` of the sessions of `userIds` (null:
 * every user), in the order recorded.
 */
export async function listUsersUsage(
  db: Queryable,
  userIds: readonly string[] | null,
  from: Date,
  to: Date,
): Promise<UserCostEvent[]> {
  return await db.query<UserCostEvent>(
    `SELECT s.user_id, e.provider, e.model, e.task_type, e.input_tokens, e.output_tokens,
            e.cached_tokens, e.cache_write_tokens, e.cost::text AS cost, e.created_at
     FROM usage_events e JOIN sessions s ON s.id = e.session_id
     WHERE ($1::uuid[] IS NULL OR s.user_id = ANY($1::uuid[]))
       AND e.created_at >= $2 AND e.created_at < $3
     ORDER BY e.seq`,
    [userIds, from, to],
  );
}
