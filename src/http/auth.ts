import { parseBearer, parseToken } from "../core/credential_format.ts";
import { ServiceError } from "../core/errors.ts";
import { digestsEqual, sha256Hex } from "../platform/secrets.ts";
import { findToken, findTokenWithSession } from "../store/tokens.ts";
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
