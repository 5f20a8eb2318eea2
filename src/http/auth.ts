import { API_KEY_PREFIX, parseApiKey, parseBearer, parseToken } from "../core/credential_format.ts";
import { ServiceError } from "../core/errors.ts";
import { digestsEqual, sha256Hex } from "../platform/secrets.ts";
import { findToken, findTokenWithSession } from "../store/tokens.ts";
import { findApiKeyHash } from "../store/users.ts";
import type { Deps, Principal } from "./context.ts";

const invalidToken = () => ServiceError.of("invalid_token", "invalid token");

/**
 * Resolves the bearer token to its owner (decisions.md §1). Expired and revoked
 * are told only to a caller whose secret matched; everything else is `invalid_token`.
 */
export async function authenticate(
  request: Request,
  deps: Deps,
  sessionId?: string,
  options: { reading?: boolean } = {},
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
  return {
    userId: row.user_id,
    tokenId: row.id,
    ...("session" in found ? { session: found.session } : {}),
    ...("reading" in found ? { reading: found.reading } : {}),
  };
}

const invalidApiKey = () => ServiceError.of("invalid_api_key", "invalid API key");

/**
 * The compatible surfaces' credentials (decisions.md §12): `Authorization:
 * Bearer` with an API key or a session token, or (`/v1/messages`) an API key
 * in `x-api-key`. An API key is checked as sign-in checks it.
 */
export async function authenticateKeyOrToken(
  request: Request,
  deps: Deps,
  options: { apiKeyHeader?: boolean } = {},
): Promise<Principal> {
  const header = request.headers.get("authorization");
  const raw = header === null ? null : parseBearer(header);
  const key = raw ?? (options.apiKeyHeader ? request.headers.get("x-api-key") : null);
  if (key === null || !key.startsWith(API_KEY_PREFIX)) {
    if (header === null && key !== null) throw invalidApiKey();
    return await authenticate(request, deps);
  }
  const parsed = parseApiKey(key);
  if (parsed === null) throw invalidApiKey();
  const stored = await findApiKeyHash(deps.db, parsed.userId);
  const presented = sha256Hex(parsed.secret);
  if (stored === null || !digestsEqual(presented, stored)) throw invalidApiKey();
  return { userId: parsed.userId, tokenId: "" };
}
