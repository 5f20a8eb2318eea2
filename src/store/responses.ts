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

/**
 * A lateral subquery (`r_chain`, `r_items`) reading a request's references:
 * the chain ending at response `$prev` (oldest first, the last with its whole
 * response) and the user's stored items with the ids in `$ids` (JSON).
 */
export function referencesSql(user: string, prev: string, ids: string): string {
  return `SELECT
       (WITH RECURSIVE chain AS (
          SELECT id, previous_id, session_id, response, input_items, 0 AS depth FROM responses
          WHERE ${prev}::text IS NOT NULL AND id = ${prev} AND user_id = ${user} AND NOT deleted
          UNION ALL
          SELECT r.id, r.previous_id, r.session_id, r.response, r.input_items, c.depth + 1
          FROM responses r JOIN chain c ON r.id = c.previous_id
          WHERE r.user_id = ${user}
        )
        SELECT jsonb_agg(jsonb_build_object(
                 'id', id, 'session_id', session_id,
                 'response', CASE WHEN depth = 0 THEN response END,
                 'input_items', input_items, 'output', response->'output'
               ) ORDER BY depth DESC)
        FROM chain) AS r_chain,
       (SELECT jsonb_agg(i)
        FROM responses r, jsonb_array_elements(r.input_items || (r.response->'output')) AS i
        WHERE jsonb_array_length(${ids}::jsonb) > 0 AND r.user_id = ${user} AND NOT r.deleted
          AND i->>'id' IN (SELECT jsonb_array_elements_text(${ids}::jsonb))) AS r_items`;
}

export interface References {
  /** The response continued, with its chain's items; null: none asked, or none of the user's. */
  previous: StoredResponse | null;
  /** The user's stored items by id, of those asked for. */
  items: Map<string, Item>;
}

interface ChainLink {
  id: string;
  session_id: string;
  response: Item | null;
  input_items: Item[];
  output: Item[] | null;
}

/** The references as `referencesSql` reads them. */
export function referencesOf(chain: ChainLink[] | null, found: Item[] | null): References {
  const last = chain?.at(-1);
  const previous = chain === null || last === undefined ? null : {
    id: last.id,
    session_id: last.session_id,
    response: last.response ?? {},
    input_items: last.input_items,
    items: chain.flatMap((link) => [...link.input_items, ...(link.output ?? [])]),
  };
  return { previous, items: new Map((found ?? []).map((i) => [String(i.id), i])) };
}

/**
 * What a request refers to, read in one round trip (the Responses surface
 * reads it with the rest of its request, conversation_turns.ts).
 */
export async function readReferences(
  db: Queryable,
  r: { userId: string; previous: string | null; itemIds: readonly string[] },
): Promise<References> {
  const rows = await db.query<{ r_chain: ChainLink[] | null; r_items: Item[] | null }>(
    referencesSql("$1", "$2", "$3"),
    [r.userId, r.previous, JSON.stringify(r.itemIds)],
  );
  return referencesOf(rows[0].r_chain, rows[0].r_items);
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
