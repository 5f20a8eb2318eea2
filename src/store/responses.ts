/**
 * The stored responses of the Responses API surface (decisions.md §14,
 * migration 018): written with their turn's records (turn_writes.ts), read
 * here by their owner only, so another user's id is absent.
 */
import type { Queryable } from "./db.ts";

export interface StoredResponse {
  id: string;
  session_id: string;
  response: Record<string, unknown>;
  input_items: Record<string, unknown>[];
  items: Record<string, unknown>[];
}

/** The user's response `id`; null when it is absent, deleted or another user's. */
export async function findResponse(
  db: Queryable,
  userId: string,
  id: string,
): Promise<StoredResponse | null> {
  const rows = await db.query<StoredResponse>(
    `SELECT id, session_id, response, input_items, items FROM responses
     WHERE id = $1 AND user_id = $2`,
    [id, userId],
  );
  return rows[0] ?? null;
}

/**
 * What a request refers to, read in one round trip: the response it continues
 * (`previous`, null: none asked or none of the user's) and the stored items
 * of the user with the ids it references, by id.
 */
export async function readReferences(
  db: Queryable,
  r: { userId: string; previous: string | null; itemIds: readonly string[] },
): Promise<{ previous: StoredResponse | null; items: Map<string, Record<string, unknown>> }> {
  const rows = await db.query<StoredResponse & { kind: string }>(
    `SELECT 'previous' AS kind, id, session_id, response, input_items, items FROM responses
     WHERE $2::text IS NOT NULL AND id = $2 AND user_id = $1
     UNION ALL
     SELECT 'items', id, session_id, NULL, '[]'::jsonb,
            (SELECT coalesce(jsonb_agg(i), '[]'::jsonb) FROM jsonb_array_elements(items) AS i
             WHERE i->>'id' IN (SELECT jsonb_array_elements_text($3::jsonb)))
     FROM responses
     WHERE jsonb_array_length($3::jsonb) > 0 AND user_id = $1
       AND EXISTS (SELECT 1 FROM jsonb_array_elements(items) AS i WHERE i->>'id' IN (SELECT jsonb_array_elements_text($3::jsonb)))`,
    [r.userId, r.previous, JSON.stringify(r.itemIds)],
  );
  const items = new Map<string, Record<string, unknown>>();
  let previous: StoredResponse | null = null;
  for (const row of rows) {
    if (row.kind === "previous") previous = row;
    else for (const item of row.items) items.set(String(item.id), item);
  }
  return { previous, items };
}

/** Deletes the user's response `id`; false when there was none of theirs. */
export async function deleteResponse(
  db: Queryable,
  userId: string,
  id: string,
): Promise<boolean> {
  const rows = await db.query<{ id: string }>(
    "DELETE FROM responses WHERE id = $1 AND user_id = $2 RETURNING id",
    [id, userId],
  );
  return rows.length > 0;
}
