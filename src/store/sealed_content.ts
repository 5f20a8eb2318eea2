/**
 * Sealed rows of an encrypted session, addressed by content reference
 * (`kind:id`, interface.md): router-authored content the client sealed, and
 * envelopes it sent in `encrypted` maps. Stored verbatim, never opened
 * (decisions.md §8).
 */
import type { Queryable } from "./db.ts";

export type Envelope = Record<string, unknown>;

/** Stores each entry of `entries` (reference → envelope); a reference sealed again is replaced. */
export async function putSealedContent(
  db: Queryable,
  sessionId: string,
  entries: Readonly<Record<string, Envelope>>,
  now: Date,
): Promise<void> {
  if (Object.keys(entries).length === 0) return;
  await db.query(
    `INSERT INTO sealed_content (session_id, ref, envelope, created_at)
     SELECT $1::uuid, e.key, e.value, $3::timestamptz FROM jsonb_each($2::jsonb) AS e
     ON CONFLICT (session_id, ref) DO UPDATE SET envelope = excluded.envelope`,
    [sessionId, JSON.stringify(entries), now],
  );
}

/** The envelopes stored under `refs`; a reference with no row is absent from the result. */
export async function getSealedContent(
  db: Queryable,
  sessionId: string,
  refs: readonly string[],
): Promise<Record<string, Envelope>> {
  if (refs.length === 0) return {};
  const rows = await db.query<{ ref: string; envelope: Envelope }>(
    `SELECT ref, envelope FROM sealed_content
     WHERE session_id = $1 AND ref IN (SELECT jsonb_array_elements_text($2::jsonb))`,
    [sessionId, JSON.stringify(refs)],
  );
  return Object.fromEntries(rows.map((r) => [r.ref, r.envelope]));
}
