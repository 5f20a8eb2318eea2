/**
 * The caller's API keys (decisions.md §13): create one (its plaintext is in
 * that answer only), list them (never a secret), revoke one (it and every
 * token signed in with it stop working at once).
 */
import type { components } from "./openapi.ts";
import type { Transport } from "./transport.ts";

export type ApiKeyInfo = components["schemas"]["ApiKeyInfo"];
export type CreatedApiKey = components["schemas"]["CreateApiKeyResponse"];

export interface KeysApi {
  /** `expiresAt`: an ISO 8601 date and time with its offset, in the future. */
  create(
    name: string,
    options?: { expiresAt?: string },
  ): Promise<CreatedApiKey>;
  /** Every key of the caller, revoked ones too, oldest first. */
  list(): Promise<ApiKeyInfo[]>;
  revoke(keyId: string): Promise<void>;
}

export function keysApi(transport: Transport): KeysApi {
  return {
    create: (name, { expiresAt } = {}) =>
      transport.json({
        method: "POST",
        path: "/api/v1/auth/keys",
        body: expiresAt === undefined ? { name } : { name, expires_at: expiresAt },
        auth: "bearer",
      }),
    async list() {
      const listed = await transport.json<{ keys: ApiKeyInfo[] }>({
        method: "GET",
        path: "/api/v1/auth/keys",
        auth: "bearer",
      });
      return listed.keys;
    },
    async revoke(keyId) {
      await transport.json({
        method: "DELETE",
        path: `/api/v1/auth/keys/${encodeURIComponent(keyId)}`,
        auth: "bearer",
      });
    },
  };
}
