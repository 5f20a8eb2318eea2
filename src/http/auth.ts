import { API_KEY_PREFIX, parseApiKey, parseBearer, parseToken } from "../core/credential_format.ts";
import { ServiceError } from "../core/errors.ts";
import { digestsEqual, sha256Hex } from "../platform/secrets.ts";
import { findUsableKeys, touchApiKey, type UsableKey } from "../store/api_keys.ts";
import { findToken, findTokenWithSession } from "../store/tokens.ts";
import type { ClaimAuth } from "../store/run_admission.ts";
import type { Deps, Principal } from "./context.ts";
import type { TokenMemo } from "./token_memo.ts";

const invalidToken = () => ServiceError.of("invalid_token", "invalid token");

/**
 * Resolves the bearer token to its owner (decisions.md §1). Expired and revoked
 * are told only to a caller whose secret matched; everything else is `invalid_token`.
 */
export async function authenticate(
  request: Request,
  deps: Deps,
  sessionId?: string,
  options: { reading?: boolean; memo?: TokenMemo } = {},
): Promise<Principal> {
  const header = request.headers.get("authorization");
  if (header === null) {
    throw ServiceError.of(
      "missing_credentials",
      "missing credentials: send Authorization: Bearer <token>",
    );
  }
  const raw = parseBearer(header);
  const parsed = raw === null ? null : parseToken(raw);
  if (parsed === null) throw invalidToken();
  // A request on a session reads the session with the token, in one round trip.
  const found = sessionId === undefined
    ? { token: await findToken(deps.db, parsed.tokenId) }
    : await findTokenWithSession(
      deps.db,
      parsed.tokenId,
      sessionId,
      options.reading ? { reading: deps.historyCache } : {},
    );
  const row = found.token;
  // Hash even when the row is missing, so an unknown id costs the same as a wrong secret.
  const presented = sha256Hex(parsed.secret);
  if (row === null || !digestsEqual(presented, row.secret_hash)) throw invalidToken();
  if (row.revoked_at !== null) {
    throw ServiceError.of("token_revoked", "token revoked: sign in again");
  }
  if (row.expires_at.getTime() <= deps.now().getTime()) {
    throw ServiceError.of("token_expired", "token expired: sign in again");
  }
  options.memo?.remember(row.id, {
    digest: presented,
    userId: row.user_id,
    expiresAt: row.expires_at,
  });
  return {
    userId: row.user_id,
    tokenId: row.id,
    ...("session" in found ? { session: found.session } : {}),
    ...("reading" in found ? { reading: found.reading } : {}),
  };
}

/**
 * A turn's token as this instance authenticated it before, to be checked by
 * the turn's claim instead of read first (token_memo.ts): the token's id, its
 * secret's digest and its user; null when the header holds no well-formed
 * token or one the memo does not know (then the request is authenticated as
 * any other).
 */
export function rememberedToken(request: Request, memo: TokenMemo, now: number): ClaimAuth | null {
  const header = request.headers.get("authorization");
  const raw = header === null ? null : parseBearer(header);
  const parsed = raw === null ? null : parseToken(raw);
  if (parsed === null) return null;
  const secretHash = sha256Hex(parsed.secret);
  const userId = memo.userOf(parsed.tokenId, secretHash, now);
  return userId === null ? null : { tokenId: parsed.tokenId, secretHash, userId };
}

const invalidApiKey = () => ServiceError.of("invalid_api_key", "invalid API key");

/** A key that matched: whose it is, which one, until when, and when it was last used. */
export interface VerifiedKey {
  userId: string;
  keyId: string;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
}

/**
 * Checks an API key (decisions.md §1, §13): the key names its user, and the
 * presented secret's digest is compared in constant time with every live key
 * of that user, all of them, whichever matches. A malformed key, an unknown or
 * disabled user, a wrong, revoked or expired key: the same `invalid_api_key`.
 */
export async function verifyApiKey(key: string, deps: Deps): Promise<VerifiedKey> {
  const parsed = parseApiKey(key);
  if (parsed === null) throw invalidApiKey();
  const keys = await findUsableKeys(deps.db, parsed.userId);
  const found = matchingKey(keys, sha256Hex(parsed.secret), deps.now().getTime());
  if (found === null) throw invalidApiKey();
  return {
    userId: parsed.userId,
    keyId: found.id,
    expiresAt: found.expires_at,
    lastUsedAt: found.last_used_at,
  };
}

/**
 * The key among a user's usable `keys` whose digest is `presented` (compared
 * in constant time with every one of them), unless expired at `now`; null
 * when none.
 */
export function matchingKey(
  keys: readonly UsableKey[],
  presented: string,
  now: number,
): UsableKey | null {
  let found: UsableKey | null = null;
  for (const candidate of keys) {
    if (digestsEqual(presented, candidate.secret_hash)) found = candidate;
  }
  if (found === null || (found.expires_at !== null && found.expires_at.getTime() <= now)) {
    return null;
  }
  return found;
}

/** `invalid_api_key`, as every failed API key is answered. */
export { invalidApiKey };

/** A key used on the compatible surfaces records its use at most this often. */
export const KEY_USE_RECORD_MS = 60_000;

/**
 * The compatible surfaces' credentials (decisions.md §12): `Authorization:
 * Bearer` with an API key or a session token, or (`/v1/messages`) an API key
 * in `x-api-key`. An API key is checked as sign-in checks it.
 */
export async function authenticateKeyOrToken(
  request: Request,
  deps: Deps,
  options: { apiKeyHeader?: boolean; memo?: TokenMemo } = {},
): Promise<Principal> {
  const header = request.headers.get("authorization");
  const raw = header === null ? null : parseBearer(header);
  const key = raw ?? (options.apiKeyHeader ? request.headers.get("x-api-key") : null);
  if (key === null || !key.startsWith(API_KEY_PREFIX)) {
    if (header === null && key !== null) throw invalidApiKey();
    return await authenticate(request, deps, undefined, { memo: options.memo });
  }
  const verified = await verifyApiKey(key, deps);
  await noteKeyUse(deps, { id: verified.keyId, last_used_at: verified.lastUsedAt });
  options.memo?.rememberKey(sha256Hex(key), verified.userId);
  return { userId: verified.userId, tokenId: "" };
}

/**
 * Records a key's use: `last_used_at` is a hint for the keys list, one write
 * a minute per key, not one per request.
 */
export async function noteKeyUse(
  deps: Deps,
  key: { id: string; last_used_at: Date | null },
): Promise<void> {
  const now = deps.now();
  if (
    key.last_used_at === null || now.getTime() - key.last_used_at.getTime() >= KEY_USE_RECORD_MS
  ) {
    await touchApiKey(deps.db, key.id, now);
  }
}

/** The API key a compatible request presents (null: none, or a session token instead). */
function presentedApiKey(request: Request, apiKeyHeader: boolean): string | null {
  const header = request.headers.get("authorization");
  const raw = header === null ? null : parseBearer(header);
  const key = raw ?? (apiKeyHeader ? request.headers.get("x-api-key") : null);
  return key !== null && key.startsWith(API_KEY_PREFIX) ? key : null;
}

/**
 * A compatible turn's API key as this instance verified it before, to be
 * checked by the turn's read instead of read first (token_memo.ts): its
 * user and the digest of its secret; null when the request carries no API
 * key or one the memo does not know.
 */
export function rememberedKey(
  request: Request,
  memo: TokenMemo,
  apiKeyHeader: boolean,
): { userId: string; digest: string; whole: string } | null {
  const key = presentedApiKey(request, apiKeyHeader);
  const parsed = key === null ? null : parseApiKey(key);
  if (key === null || parsed === null) return null;
  const whole = sha256Hex(key);
  if (memo.keyUser(whole) !== parsed.userId) return null;
  return { userId: parsed.userId, digest: sha256Hex(parsed.secret), whole };
}

/**
 * The operator's bearer token (decisions.md §13), compared in constant time
 * (as digests, so neither its length nor its content leaks). No header:
 * `missing_credentials`; anything else wrong: `invalid_token`.
 */
export function authenticateOperator(request: Request, deps: Deps): Principal {
  const expected = deps.config.auth.operatorToken;
  const header = request.headers.get("authorization");
  if (header === null) {
    throw ServiceError.of(
      "missing_credentials",
      "missing credentials: send Authorization: Bearer <operator token>",
    );
  }
  const raw = parseBearer(header);
  const presented = sha256Hex(raw ?? "");
  if (expected === undefined || raw === null || !digestsEqual(presented, sha256Hex(expected))) {
    throw ServiceError.of("invalid_token", "invalid operator token");
  }
  return { userId: "", tokenId: "" };
}
