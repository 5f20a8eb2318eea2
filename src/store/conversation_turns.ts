/**
 * Which session a compatible surface's conversation belongs to (decisions.md
 * §12): the one the client's conversation key names (migration 021), else the
 * one whose recorded conversation, by its digest as answered, this request
 * continues. A turn records its conversation with its other records
 * (turn_writes.ts, in the same statement); a key is recorded with the session
 * it creates; deleting the session forgets both.
 */
import { sha256Hex } from "../platform/secrets.ts";
import type { Policy } from "../core/turn_request_types.ts";
import type { UsableKey } from "./api_keys.ts";
import type { Queryable } from "./db.ts";
import type { NamedPolicy } from "./policies.ts";
import { type References, referencesOf, referencesSql } from "./responses.ts";
import type { SessionRow } from "./sessions.ts";

interface ReadingRow {
  p_name: string | null;
  p_version: number | null;
  p_created_at: Date | null;
  p_policy: string | null;
  s_id: string | null;
  s_user_id: string;
  s_title: string | null;
  s_scope: string | null;
  s_key_id: string | null;
  s_archived: boolean;
  s_metadata: Record<string, unknown>;
  s_created_at: Date;
  s_updated_at: Date;
  r_chain?: Parameters<typeof referencesOf>[0];
  r_items?: Parameters<typeof referencesOf>[1];
  k_keys?: [string, string, string | null, string | null][];
}

/** What a compatible request needs before its claim, read in one round trip. */
export interface CompatReading {
  /** The named policy asked for (its latest version when none is given); null when absent. */
  policy: NamedPolicy | null;
  /**
   * The session named by header, else the one the conversation key names, else
   * (without a key) the one whose conversation has the digest; null: none.
   */
  session: SessionRow | null;
  /** What a Responses request refers to, when it asked (store/responses.ts). */
  references?: References;
  /** The user's usable API keys, when asked (`withKeys`): as `findUsableKeys` reads them. */
  keys?: UsableKey[];
}

/** How a conversation key is stored: its SHA-256, never the client's text. */
export function conversationKeyDigest(key: string): string {
  return sha256Hex(key);
}

/**
 * The user's policy `name` (version `version`, or the latest) and the session
 * a request continues: `sessionId` when the header named one, else the one
 * whose recorded conversation has `digest`. Another user's rows are absent.
 */
export async function readCompatRequest(
  db: Queryable,
  r: {
    userId: string;
    policy: string;
    version: number | null;
    sessionId: string | null;
    /** `conversationKeyDigest` of the client's conversation key; null: none sent. */
    keyDigest: string | null;
    /** Used only without a key. */
    digest: string | null;
    /**
     * A Responses request's stored response and items: read too, and the
     * session is the previous response's.
     */
    references?: { previous: string | null; itemIds: readonly string[] };
    /** Read the user's usable API keys too, for the caller to check the key it was sent. */
    withKeys?: boolean;
  },
): Promise<CompatReading> {
  const refs = r.references;
  // The keys as findUsableKeys reads them: not revoked, the user not disabled.
  const keys = r.withKeys
    ? `, (SELECT coalesce(json_agg(json_build_array(k.id, k.secret_hash, k.expires_at,
                                                     k.last_used_at)), '[]'::json)
          FROM api_keys k JOIN users u ON u.id = k.user_id
          WHERE k.user_id = $1 AND k.revoked_at IS NULL AND u.disabled_at IS NULL) AS k_keys`
    : "";
  const rows = await db.query<ReadingRow>(
    `SELECT p.name AS p_name, p.version AS p_version, p.created_at AS p_created_at,
            p.policy::text AS p_policy,
            s.id AS s_id, s.user_id AS s_user_id, s.title AS s_title, s.scope AS s_scope,
            s.key_id AS s_key_id, s.archived AS s_archived, s.metadata AS s_metadata,
            s.created_at AS s_created_at, s.updated_at AS s_updated_at${
      refs === undefined ? "" : ", r.r_chain, r.r_items"
    }${keys}
     FROM (SELECT 1) AS one
     LEFT JOIN LATERAL (
       SELECT name, version, created_at, policy FROM policies
       WHERE user_id = $1 AND name = $2 AND ($3::integer IS NULL OR version = $3)
       ORDER BY version DESC LIMIT 1
     ) AS p ON true
     LEFT JOIN LATERAL (
       SELECT * FROM sessions
       WHERE user_id = $1 AND id = coalesce(${
      refs === undefined ? "" : `
         (SELECT session_id FROM responses
          WHERE $7::text IS NOT NULL AND id = $7 AND user_id = $1 AND NOT deleted),`
    }
         $4::uuid,
         (SELECT session_id FROM conversation_keys WHERE user_id = $1 AND key_digest = $6),
         (SELECT session_id FROM conversation_turns
          WHERE user_id = $1 AND digest = $5 AND $6::text IS NULL)
       )
     ) AS s ON true${
      refs === undefined ? "" : `
     LEFT JOIN LATERAL (${referencesSql("$1", "$7", "$8")}) AS r ON true`
    }`,
    [
      r.userId,
      r.policy,
      r.version,
      r.sessionId,
      r.digest,
      r.keyDigest,
      ...(refs === undefined ? [] : [refs.previous, JSON.stringify(refs.itemIds)]),
    ],
  );
  const row = rows[0];
  return {
    policy: row.p_name === null ? null : {
      name: row.p_name,
      version: row.p_version!,
      created_at: row.p_created_at!,
      policy: JSON.parse(row.p_policy!) as Policy,
    },
    session: row.s_id === null ? null : {
      id: row.s_id,
      user_id: row.s_user_id,
      title: row.s_title,
      scope: row.s_scope,
      key_id: row.s_key_id,
      archived: row.s_archived,
      metadata: row.s_metadata,
      created_at: row.s_created_at,
      updated_at: row.s_updated_at,
    },
    ...(refs === undefined
      ? {}
      : { references: referencesOf(row.r_chain ?? null, row.r_items ?? null) }),
    ...(row.k_keys === undefined ? {} : {
      keys: row.k_keys.map(([id, secret_hash, expires, used]) => ({
        id,
        secret_hash,
        expires_at: expires === null ? null : new Date(expires),
        last_used_at: used === null ? null : new Date(used),
      })),
    }),
  };
}

/**
 * A new session for a conversation key, and the key naming it, in one
 * statement. Two first requests of one key at once: the first to commit names
 * the session; the other's session stays its own (as a fork would). A key
 * whose session was archived names the new one.
 */
export async function insertKeyedSession(
  db: Queryable,
  s: {
    id: string;
    userId: string;
    title: string;
    metadata: Record<string, unknown>;
    keyDigest: string;
    now: Date;
  },
): Promise<SessionRow> {
  const rows = await db.query<SessionRow>(
    `WITH s AS (
       INSERT INTO sessions (id, user_id, title, scope, key_id, metadata, created_at, updated_at)
       VALUES ($1, $2, $3, NULL, NULL, $4::jsonb, $6, $6)
       RETURNING id, user_id, title, scope, key_id, archived, metadata, created_at, updated_at
     ), k AS (
       INSERT INTO conversation_keys AS k (user_id, key_digest, session_id, created_at)
       SELECT user_id, $5, id, created_at FROM s
       ON CONFLICT (user_id, key_digest) DO UPDATE
         SET session_id = excluded.session_id, created_at = excluded.created_at
         WHERE NOT EXISTS (
           SELECT 1 FROM sessions AS o WHERE o.id = k.session_id AND NOT o.archived
         )
     )
     SELECT * FROM s`,
    [s.id, s.userId, s.title, JSON.stringify(s.metadata), s.keyDigest, s.now],
  );
  return rows[0];
}
