import { sha256Hex } from "../platform/secrets.ts";
import { checkProviderId, COMPAT_PREFIX } from "../core/model_reference.ts";

/**
 * Provider credentials sent with one request, keyed by provider id. Held only
 * for that request: never stored, logged, traced or forwarded to a model.
 */
export type ProviderCredentials = ReadonlyMap<string, string>;

const BUILT_IN_NAMES = new Set(["openai", "anthropic", "gemini", "ollama"]);
const HEADER = /^x-router-provider-(.+)-api-key$/;

/** The provider id a header name `<name>` stands for (built-in, else compatible instance). */
function providerIdOfHeaderName(name: string): string | undefined {
  const lower = name.toLowerCase();
  if (BUILT_IN_NAMES.has(lower)) return lower;
  const id = `${COMPAT_PREFIX}${lower}`;
  return checkProviderId(id).kind === "compat" ? id : undefined;
}

/**
 * Reads every `X-Router-Provider-<Provider>-Api-Key` header (case-insensitive).
 * `<Provider>` is a built-in id or a compatible instance's name, which maps to
 * `openai-compat:<name>`. Empty values and names that cannot be a provider are ignored.
 */
export function parseCredentialHeaders(headers: Headers): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, value] of headers) {
    const match = HEADER.exec(name.toLowerCase());
    if (match === null) continue;
    const id = providerIdOfHeaderName(match[1]);
    const key = value.trim();
    if (id !== undefined && key !== "") out.set(id, key);
  }
  return out;
}

/** The header a client sends the key of `providerId` in. */
export function credentialHeaderName(providerId: string): string {
  const form = checkProviderId(providerId);
  const name = form.kind === "compat" ? form.name : providerId;
  return `X-Router-Provider-${name}-Api-Key`;
}

/**
 * A stable, non-reversible name for a credential, for cache keys: the SHA-256
 * hex of the key, or `"none"` without one. The key itself is never kept.
 */
export function credentialFingerprint(key: string | undefined): string {
  return key === undefined || key === "" ? "none" : sha256Hex(key);
}
