/**
 * Model references (`provider/model`, split at the first `/`) and the one
 * grammar of provider ids (decisions.md §5, §11), shared by the request
 * checks, the provider registry and credential headers. Whether a well-formed
 * provider exists is a registry question answered elsewhere.
 */

export const COMPAT_PREFIX = "openai-compat:";

/**
 * A provider name: lower-case letters, digits, `_` and `-`, starting with a
 * letter or digit, at most 63 characters — the form configuration accepts
 * for `openai-compat:<name>`. No `.`, `:` or `/`, so a name is always one
 * segment of a model reference and of an `X-Router-Provider-<name>-Api-Key`
 * header.
 */
const NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** The form of a provider id, known to the registry or not. */
export type ProviderIdForm =
  | { kind: "bare"; id: string }
  | { kind: "compat"; id: string; name: string }
  | { kind: "invalid"; id: string };

/** A bare id (`openai`, `ollama`, ...) or a compatible instance `openai-compat:<name>`. */
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

export interface ModelReference {
  provider: string;
  model: string;
}

/** Where `ref`'s `/` is; -1 when it is not `provider/model` with both parts non-empty. */
function slashOf(ref: string): number {
  const slash = ref.indexOf("/");
  return slash <= 0 || slash === ref.length - 1 ? -1 : slash;
}

/** `null` when the reference is not `provider/model` with both parts non-empty. */
export function parseModelReference(ref: string): ModelReference | null {
  const slash = slashOf(ref);
  return slash < 0 ? null : { provider: ref.slice(0, slash), model: ref.slice(slash + 1) };
}

/** The provider a well-formed reference names, as `parseModelReference` reads it; null otherwise. */
export function referenceProvider(ref: string): string | null {
  const slash = slashOf(ref);
  return slash < 0 ? null : ref.slice(0, slash);
}

export type ReferenceProblem = "invalid_model_reference" | "invalid_provider_name";

/** The first problem of form a reference has, or `null` when it is well formed. */
export function referenceProblem(
  ref: string,
  isValidProvider: (id: string) => boolean = isWellFormedProviderId,
): ReferenceProblem | null {
  const parsed = parseModelReference(ref);
  if (parsed === null) return "invalid_model_reference";
  return isValidProvider(parsed.provider) ? null : "invalid_provider_name";
}

export function formatReference(provider: string, model: string): string {
  return `${provider}/${model}`;
}
