/**
 * Model references (`provider/model`, split at the first `/`) and the form of
 * provider ids (decisions.md §5). Whether a well-formed provider exists is a
 * registry question answered elsewhere.
 */

export const COMPAT_PREFIX = "openai-compat:";

const NAME = /^[a-z0-9][a-z0-9._-]*$/;

export interface ModelReference {
  provider: string;
  model: string;
}

/** `null` when the reference is not `provider/model` with both parts non-empty. */
export function parseModelReference(ref: string): ModelReference | null {
  const slash = ref.indexOf("/");
  if (slash <= 0 || slash === ref.length - 1) return null;
  return { provider: ref.slice(0, slash), model: ref.slice(slash + 1) };
}

/**
 * A bare id (`openai`, `ollama`, ...) or a compatible instance
 * `openai-compat:<name>`, each name lower case `[a-z0-9][a-z0-9._-]*`.
 */
export function isWellFormedProviderId(id: string): boolean {
  const name = id.startsWith(COMPAT_PREFIX) ? id.slice(COMPAT_PREFIX.length) : id;
  return NAME.test(name);
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
