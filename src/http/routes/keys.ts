/**
 * A user's API keys (decisions.md §13): create (the plaintext key shown only
 * in that answer), list (never a secret) and revoke. Revoking a key refuses it
 * and every token signed in with it at once, on every instance: the token
 * lookup reads the key (store/tokens.ts).
 */
import { formatApiKey, isUuid } from "../../core/credential_format.ts";
import { parseRfc3339 } from "../../core/rfc3339.ts";
import { ServiceError } from "../../core/errors.ts";
import { sha256Hex } from "../../platform/secrets.ts";
import {
  type ApiKeyRow,
  insertApiKey,
  listApiKeys,
  MAX_LIVE_KEYS,
  revokeApiKey,
} from "../../store/api_keys.ts";
import { compiled, type } from "../ark.ts";
import { discardBody, readJsonObject } from "../body.ts";
import { closedObject } from "../closed_object.ts";
import type { Endpoint } from "../context.ts";
import { jsonResponse } from "../error_response.ts";
import { validate } from "../validation.ts";
import { Name } from "../names.ts";
import { newKeySecret } from "./auth.ts";

/** `expires_at`: a real RFC 3339 date-time (core/rfc3339.ts). */
const Timestamp = type("string").narrow((text, ctx) => {
  const parsed = parseRfc3339(text);
  return parsed.ok || ctx.reject({ message: parsed.problem });
});

/** The instant of a checked `expires_at`. */
function instant(text: string): Date {
  const parsed = parseRfc3339(text);
  if (!parsed.ok) throw new Error(`unchecked expires_at: ${parsed.problem}`);
  return parsed.date;
}

/** Every field a key's body takes; any other is refused (decisions.md §13). */
const CreateKey = compiled(closedObject({
  name: Name,
  "expires_at?": Timestamp.or("null"),
}));

const iso = (d: Date | null) => d === null ? null : d.toISOString();

function keyView(row: ApiKeyRow) {
  return {
    key_id: row.id,
    name: row.name,
    created_at: row.created_at.toISOString(),
    last_used_at: iso(row.last_used_at),
    expires_at: iso(row.expires_at),
    revoked_at: iso(row.revoked_at),
  };
}

export const createKey: Endpoint = {
  auth: "bearer",
  async handle({ request, deps, principal }) {
    const body = validate(
      CreateKey,
      await readJsonObject(request, deps.config.limits.maxRequestBodyBytes),
    );
    const now = deps.now();
    const expiresAt = body.expires_at == null ? null : instant(body.expires_at);
    if (expiresAt !== null && expiresAt.getTime() <= now.getTime()) {
      throw ServiceError.of(
        "invalid_request",
        `invalid request body: expires_at: must be in the future (was "${expiresAt.toISOString()}")`,
        { path: "expires_at" },
      );
    }
    const keyId = deps.newId();
    const secret = newKeySecret();
    const stored = await insertApiKey(deps.db, {
      id: keyId,
      userId: principal.userId,
      name: body.name,
      keyHash: sha256Hex(secret),
      now,
      expiresAt,
    });
    if (!stored) {
      throw ServiceError.of(
        "invalid_request",
        `too many API keys: at most ${MAX_LIVE_KEYS} live at once; revoke one first`,
        { limit: MAX_LIVE_KEYS },
      );
    }
    return jsonResponse({
      key_id: keyId,
      name: body.name,
      api_key: formatApiKey(principal.userId, secret),
      created_at: now.toISOString(),
      expires_at: iso(expiresAt),
    }, 201);
  },
};

export const listKeys: Endpoint = {
  auth: "bearer",
  async handle({ deps, principal }) {
    const rows = await listApiKeys(deps.db, principal.userId);
    return jsonResponse({ keys: rows.map(keyView) });
  },
};

/** Another user's key, an unknown one and a malformed id all answer 404 alike. */
export const revokeKey: Endpoint = {
  auth: "bearer",
  async handle({ request, params, deps, principal }) {
    await discardBody(request, deps.config.limits.maxRequestBodyBytes);
    const id = params.key_id;
    const revoked = isUuid(id) &&
      await revokeApiKey(deps.db, principal.userId, id.toLowerCase(), deps.now());
    if (!revoked) throw ServiceError.of("not_found", `API key not found: "${id}"`);
    return jsonResponse({ revoked: true });
  },
};
