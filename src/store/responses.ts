/**
 * The stored responses of the Responses API surface (decisions.md §14,
 * migration 018): written with their turn's records (turn_writes.ts), read
 * here by their owner only, so another user's id is absent. A row holds its
 * own input items and response; a chain's conversation is read by walking
 * `previous_id` back from its last response, in the same round trip.
 */
import type { Queryable } from "./db.ts";

type Item = Record<string, unknown>;

export interface StoredResponse {
  id: string;
  session_id: string;
  response: Item;
  input_items: Item[];
  /** The whole conversation it ended: each earlier response's input and output, then its own. */
  items: Item[];
}

/** The user's response `id`; null when it is absent, deleted or another user's. */
export async function findResponse(
  db: Queryable,
  userId: string,
  id: string,
): Promise<Omit<StoredResponse, "items"> | null> {
  const rows = await db.query<Omit<StoredResponse, "items">>(
    `SELECT id, session_id, response, input_items FROM responses
     WHERE id = $1 AND user_id = $2 AND NOT deleted`,
    [id, userId],
  );
  return rows[0] ?? null;
}

interface ChainRow {
  kind: "chain" | "item";
  id: string;
  session_id: string;
  response: Item | null;
  input_items: Item[];
  output: Item[];
}

/**
 * What a request refers to, read in one round trip: the response it continues
 * (`previous`, with its chain's items; null when none was asked or it is none
 * of the user's) and the user's stored items with the ids it references.
 */
export async function readReferences(
  db: Queryable,
  r: { userId: string; previous: string | null; itemIds: readonly string[] },
): Promise<{ previous: StoredResponse | null; items: Map<string, Item> }> {
  const rows = await db.query<ChainRow>(
    `WITH RECURSIVE chain AS (
       SELECT id, previous_id, session_id, response, input_items, 0 AS depth FROM responses
       WHERE $2::text IS NOT NULL AND id = $2 AND user_id = $1 AND NOT deleted
       UNION ALL
       SELECT r.id, r.previous_id, r.session_id, r.response, r.input_items, c.depth + 1
       FROM responses r JOIN chain c ON r.id = c.previous_id
       WHERE r.user_id = $1
     ),
     wanted AS (SELECT jsonb_array_elements_text($3::jsonb) AS id)
     SELECT kind, id, session_id, response, input_items, output FROM (
       SELECT 'chain' AS kind, id, session_id,
              CASE WHEN depth = 0 THEN response END AS response,
              input_items, response->'output' AS output, depth
       FROM chain
       UNION ALL
       SELECT 'item', r.id, r.session_id, NULL,
              (SELECT coalesce(jsonb_agg(i), '[]'::jsonb)
               FROM jsonb_array_elements(r.input_items || (r.response->'output')) AS i
               WHERE i->>'id' IN (SELECT id FROM wanted)),
              '[]'::jsonb, 0
       FROM responses r
       WHERE jsonb_array_length($3::jsonb) > 0 AND r.user_id = $1 AND NOT r.deleted
         AND EXISTS (
           SELECT 1 FROM jsonb_array_elements(r.input_items || (r.response->'output')) AS i
           WHERE i->>'id' IN (SELECT id FROM wanted)
         )
     ) AS found
     ORDER BY kind, depth DESC`,
    [r.userId, r.previous, JSON.stringify(r.itemIds)],
  );
  const chain = rows.filter((row) => row.kind === "chain");
  const last = chain.at(-1);
  const previous = last === undefined ? null : {
    id: last.id,
    session_id: last.session_id,
    response: last.response ?? {},
    input_items: last.input_items,
    items: chain.flatMap((row) => [...row.input_items, ...row.output]),
  };
  const items = new Map<string, Item>();
  for (const row of rows) {
    if (row.kind === "item") {
      for (const item of row.input_items) items.set(String(item.id), item);
    }
  }
  return { previous, items };
}

/**
 * Deletes the user's response `id`: removed, or hidden while a later response
 * continues it (its items are that response's context); false when there was
 * none of theirs.
 */
export async function deleteResponse(
  db: Queryable,
  userId: string,
  id: string,
): Promise<boolean> {
  const rows = await db.query<{ id: string }>(
    `WITH target AS (
       SELECT id FROM responses WHERE id = $1 AND user_id = $2 AND NOT deleted
     ),
     continued AS (
       SELECT EXISTS (SELECT 1 FROM responses WHERE previous_id = $1) AS yes
     ),
     hidden AS (
       UPDATE responses SET deleted = true
       WHERE id IN (SELECT id FROM target) AND (SELECT yes FROM continued)
       RETURNING id
     ),
     removed AS (
       DELETE FROM responses
       WHERE id IN (SELECT id FROM target) AND NOT (SELECT yes FROM continued)
       RETURNING id
     )
     SELECT id FROM hidden UNION ALL SELECT id FROM removed`,
    [id, userId],
  );
  return rows.length > 0;
}
