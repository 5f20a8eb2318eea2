import { formatApiKey, formatToken, parseApiKey } from "../../core/credential_format.ts";
import { ServiceError } from "../../core/errors.ts";
import {
  digestsEqual,
  LOWER_ALPHANUMERIC,
  MIXED_ALPHANUMERIC,
  randomString,
  sha256Hex,
} from "../../platform/secrets.ts";
import { insertToken, revokeToken } from "../../store/tokens.ts";
import { findApiKeyHash, insertUserWithKey } from "../../store/users.ts";
import type { Endpoint } from "../context.ts";
import { discardBody } from "../body.ts";
import { jsonResponse } from "../error_response.ts";

const SECRET_LENGTH = 64;

export const bootstrap: Endpoint = {
  auth: "none",
  limitByAddress: true,
  async handle({ request, deps }) {
    await discardBody(request, deps.config.limits.maxRequestBodyBytes);
    if (!deps.config.auth.bootstrapEnabled) {
      throw ServiceError.of("forbidden", "bootstrap is disabled on this service");
    }
    const userId = deps.newId();
    const secret = randomString(SECRET_LENGTH, MIXED_ALPHANUMERIC);
    await insertUserWithKey(deps.db, {
      id: userId,
      keyHash: sha256Hex(secret),
      now: deps.now(),
    });
    return jsonResponse({ user_id: userId, api_key: formatApiKey(userId, secret) }, 201);
  },
};

const invalidApiKey = () => ServiceError.of("invalid_api_key", "invalid API key");

export const signIn: Endpoint = {
  auth: "none",
  limitByAddress: true,
  async handle({ request, deps }) {
    await discardBody(request, deps.config.limits.maxRequestBodyBytes);
    const key = request.headers.get("x-router-api-key");
    if (key === null || key === "") {
      throw ServiceError.of("missing_credentials", "missing credentials: send X-Router-Api-Key");
    }
    const parsed = parseApiKey(key);
    if (parsed === null) throw invalidApiKey();
    const stored = await findApiKeyHash(deps.db, parsed.userId);
    const presented = sha256Hex(parsed.secret);
    if (stored === null || !digestsEqual(presented, stored)) throw invalidApiKey();

    const now = deps.now();
    const tokenId = deps.newId();
    const secret = randomString(SECRET_LENGTH, LOWER_ALPHANUMERIC);
    const expiresAt = new Date(now.getTime() + deps.config.auth.tokenTtlSeconds * 1000);
    await insertToken(deps.db, {
      id: tokenId,
      userId: parsed.userId,
      secretHash: sha256Hex(secret),
      now,
      expiresAt,
    });
    return jsonResponse({
      token: formatToken(tokenId, secret),
      expires_at: expiresAt.toISOString(),
    });
  },
};

export const signOut: Endpoint = {
  auth: "bearer",
  async handle({ request, deps, principal }) {
    await discardBody(request, deps.config.limits.maxRequestBodyBytes);
    await revokeToken(deps.db, principal.tokenId, deps.now());
    return jsonResponse({ revoked: true });
  },
};

export const me: Endpoint = {
  auth: "bearer",
  handle: ({ principal }) => Promise.resolve(jsonResponse({ user_id: principal.userId })),
};
