import { formatApiKey, formatToken } from "../../core/credential_format.ts";
import { ServiceError } from "../../core/errors.ts";
import {
  LOWER_ALPHANUMERIC,
  MIXED_ALPHANUMERIC,
  randomString,
  sha256Hex,
} from "../../platform/secrets.ts";
import { insertToken, revokeToken } from "../../store/tokens.ts";
import { insertUserWithKey } from "../../store/users.ts";
import { verifyApiKey } from "../auth.ts";
import type { Deps, Endpoint } from "../context.ts";
import { discardBody } from "../body.ts";
import { jsonResponse } from "../error_response.ts";

const SECRET_LENGTH = 64;

/** A new API key's secret: 64 characters [A-Za-z0-9] from the CSPRNG (decisions.md §1). */
export function newKeySecret(): string {
  return randomString(SECRET_LENGTH, MIXED_ALPHANUMERIC);
}

/**
 * Creates a user with its first key (named `bootstrap` for bootstrap's users)
 * and answers the plaintext key, the only time it is shown.
 */
export async function createUser(
  deps: Deps,
  user: { name: string | null; keyName: string },
): Promise<{ userId: string; apiKey: string }> {
  const userId = deps.newId();
  const secret = newKeySecret();
  await insertUserWithKey(deps.db, {
    id: userId,
    keyId: deps.newId(),
    keyName: user.keyName,
    name: user.name,
    keyHash: sha256Hex(secret),
    now: deps.now(),
  });
  return { userId, apiKey: formatApiKey(userId, secret) };
}

export const bootstrap: Endpoint = {
  auth: "none",
  limitByAddress: true,
  async handle({ request, deps }) {
    await discardBody(request, deps.config.limits.maxRequestBodyBytes);
    if (!deps.config.auth.bootstrapEnabled) {
      throw ServiceError.of("forbidden", "bootstrap is disabled on this service");
    }
    const user = await createUser(deps, { name: null, keyName: "bootstrap" });
    return jsonResponse({ user_id: user.userId, api_key: user.apiKey }, 201);
  },
};

export const signIn: Endpoint = {
  auth: "none",
  limitByAddress: true,
  async handle({ request, deps }) {
    await discardBody(request, deps.config.limits.maxRequestBodyBytes);
    const key = request.headers.get("x-router-api-key");
    if (key === null || key === "") {
      throw ServiceError.of("missing_credentials", "missing credentials: send X-Router-Api-Key");
    }
    const verified = await verifyApiKey(key, deps);

    const now = deps.now();
    const tokenId = deps.newId();
    const secret = randomString(SECRET_LENGTH, LOWER_ALPHANUMERIC);
    // A token outlives neither its TTL nor the key that signed it in.
    const ttlEnd = now.getTime() + deps.config.auth.tokenTtlSeconds * 1000;
    const expiresAt = new Date(Math.min(ttlEnd, verified.expiresAt?.getTime() ?? ttlEnd));
    await insertToken(deps.db, {
      id: tokenId,
      userId: verified.userId,
      secretHash: sha256Hex(secret),
      now,
      expiresAt,
      apiKeyId: verified.keyId,
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
