import type { Queryable } from "./db.ts";
import { RECALL_LIMIT } from "./memories.ts";
import type { HistoryCache } from "./history_cache.ts";
import type { HistoryRead, TurnReading } from "./run_admission.ts";
import type { SessionRow } from "./sessions.ts";

export interface TokenRow {
  id: string;
  user_id: string;
  secret_hash: string;
  expires_at: Date;
  revoked_at: Date | null;
}

/**
 * Stores a token signed in with the key `apiKeyId`, and records that key's
 * use, in one statement.
 */
export async function insertToken(
  db: Queryable,
  token: {
    id: string;
    userId: string;
    secretHash: string;
    now: Date;
    expiresAt: Date;
    apiKeyId?: string | null;
  },
): Promise<void> {
  await db.query(
    `WITH used AS (UPDATE api_keys SET last_used_at = $4 WHERE id = $6)
     INSERT INTO tokens (id, user_id, secret_hash, created_at, expires_at, api_key_id)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [token.id, token.userId, token.secretHash, token.now, token.expiresAt, token.apiKeyId ?? null],
  );
}

/**
 * A token's columns, with `revoked_at` also set while the key it was signed in
 * with is revoked or its user disabled (decisions.md §13): the same lookup
 * that finds the token refuses it, on every instance, in no extra round trip.
 */
const TOKEN_COLUMNS = `t.id, t.user_id, t.secret_hash, t.expires_at,
            COALESCE(t.revoked_at, k.revoked_at, u.disabled_at) AS revoked_at`;
const TOKEN_OWNERS = `JOIN users u ON u.id = t.user_id LEFT JOIN api_keys k ON k.id = t.api_key_id`;

export async function findToken(db: Queryable, id: string): Promise<TokenRow | null> {
  const rows = await db.query<TokenRow>(
    `SELECT ${TOKEN_COLUMNS} FROM tokens t ${TOKEN_OWNERS} WHERE t.id = $1`,
    [id],
  );
  return rows[0] ?? null;
}

/** Revokes once; a second sign-out with the same token never reaches here (it is already revoked). */
export async function revokeToken(db: Queryable, id: string, now: Date): Promise<void> {
  await db.query(
    "UPDATE tokens SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL",
    [id, now],
  );
}

const TOKEN_WITH_SESSION = `SELECT ${TOKEN_COLUMNS},
            s.id AS s_id, s.title AS s_title, s.scope AS s_scope, s.key_id AS s_key_id,
            s.archived AS s_archived, s.metadata AS s_metadata, s.created_at AS s_created_at,
            s.updated_at AS s_updated_at`;
const FROM_TOKEN_AND_SESSION = `FROM tokens t ${TOKEN_OWNERS}
     LEFT JOIN sessions s ON s.id = $2 AND s.user_id = t.user_id WHERE t.id = $1`;
const READING =
  `CASE WHEN s.id IS NOT NULL THEN switchyard_history(s.id, NULL, $4, $5) END AS r_history,
            CASE WHEN s.id IS NOT NULL THEN switchyard_recall(t.user_id, s.id, $3) END AS r_memory`;

/**
 * The token and, in the same round trip, the session `sessionId` of the
 * token's owner (null when there is none): what an authenticated request on a
 * session reads before anything else. With `reading` (preview), also that
 * session's history (past what the cache holds) and recalled memory, as a turn
 * would read them. The caller checks the token before using any of it.
 */
export async function findTokenWithSession(
  db: Queryable,
  tokenId: string,
  sessionId: string,
  options: { reading?: HistoryCache } = {},
): Promise<{ token: TokenRow | null; session: SessionRow | null; reading?: TurnReading }> {
  type Row = TokenRow & { [column: `s_${string}`]: unknown } & {
    r_history?: HistoryRead | null;
    r_memory?: TurnReading["memory"] | null;
  };
  const cache = options.reading;
  const mark = cache?.mark(sessionId);
  const rows = mark !== undefined
    ? await db.query<Row>(`${TOKEN_WITH_SESSION}, ${READING} ${FROM_TOKEN_AND_SESSION}`, [
      tokenId,
      sessionId,
      RECALL_LIMIT,
      mark.seq,
      mark.id,
    ])
    : await db.query<Row>(`${TOKEN_WITH_SESSION} ${FROM_TOKEN_AND_SESSION}`, [tokenId, sessionId]);
  const row = rows[0];
  if (row === undefined) return { token: null, session: null };
  const { id, user_id, secret_hash, expires_at, revoked_at } = row;
  const token = { id, user_id, secret_hash, expires_at, revoked_at };
  if (row.s_id === null) return { token, session: null };
  const session = {
    id: row.s_id,
    user_id,
    title: row.s_title,
    scope: row.s_scope,
    key_id: row.s_key_id,
    archived: row.s_archived,
    metadata: row.s_metadata,
    created_at: row.s_created_at,
    updated_at: row.s_updated_at,
  } as SessionRow;
  if (cache === undefined || mark === undefined || !row.r_history || !row.r_memory) {
    return { token, session };
  }
  const history = cache.history(sessionId, mark, row.r_history, session.key_id === null);
  return { token, session, reading: { history, memory: row.r_memory } };
}
