/**
 * The grammar of provider ids, shared by configuration validation and routing.
 * Pure and dependency-free, so the routing core can use it too.
 *
 * - a bare id: `[a-z0-9][a-z0-9_-]*` (the built-ins `openai`, `anthropic`,
 *   `gemini`, `ollama`; any other bare id is well formed but unknown);
 * - a compatible instance: `openai-compat:<name>`, `<name>` of the same form.
 *
 * Ids are lower case: `OpenAI` or `openai-compat:Bad Name!` are malformed.
 * At most 64 characters per part, so a name always fits a header name.
 */
export const COMPAT_PREFIX = "openai-compat:";

const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export type ProviderIdForm =
  | { kind: "bare"; id: string }
  | { kind: "compat"; id: string; name: string }
  | { kind: "invalid"; id: string };

export function checkProviderId(id: string): ProviderIdForm {
  if (id.startsWith(COMPAT_PREFIX)) {
    const name = id.slice(COMPAT_PREFIX.length);
    return NAME.test(name) ? { kind: "compat", id, name } : { kind: "invalid", id };
  }
  return NAME.test(id) ? { kind: "bare", id } : { kind: "invalid", id };
}

/** True when `id` has the form of a provider id (known or not). */
export function isWellFormedProviderId(id: string): boolean {
  return checkProviderId(id).kind !== "invalid";
}
