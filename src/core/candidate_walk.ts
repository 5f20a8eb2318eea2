/**
 * The candidate walk (decisions.md §5): the primary, then each fallback in
 * order; the first usable one is chosen. Each skipped candidate keeps the
 * first check it failed, in the order the checks are listed here.
 */
import { CAPABILITIES, type Capabilities, type Capability, type ModelDescriptor } from "./model.ts";
import { parseModelReference } from "./model_reference.ts";
import { DEFAULT_REPLY_RESERVE } from "./vocabulary.ts";

export interface CandidateEnvironment {
  catalog: readonly ModelDescriptor[];
  known_providers: ReadonlySet<string>;
  /** Providers a credential header was sent for. */
  credential_providers: ReadonlySet<string>;
  /**
   * Providers whose listing failed for this request, with the listing's
   * reason (e.g. `timeout`): none of their models is usable. A provider left
   * unlisted for missing credentials is not here; the credential check says so.
   */
  unavailable_providers?: ReadonlyMap<string, string>;
  local_required: boolean;
  /** `privacy.local.mode` deny with required workspace content. */
  local_barred: boolean;
  requires_capabilities?: Capabilities;
  /**
   * Capabilities the request's content needs (images in the prompt, structured
   * output), with why: a gate like the rule's, on every candidate of a route.
   */
  content_capabilities?: readonly ContentNeed[];
  /** Prompt plus required context, in estimated tokens. */
  required_tokens: number;
}

/** A capability the request itself needs, and what in it needs it. */
export interface ContentNeed {
  capability: Capability;
  because: string;
}

/** Why a candidate was skipped; `window` is kept apart so a too-small window can be told. */
export type SkipCheck =
  | "reference"
  | "provider"
  | "listing"
  | "catalog"
  | "credentials"
  | "locality"
  | "local_mode"
  | "capability"
  | "window";

export interface SkippedCandidate {
  model: string;
  check: SkipCheck;
  reason: string;
}

export interface ChosenCandidate {
  /** 0 for the primary, n for fallback n. */
  position: number;
  reference: string;
  model: ModelDescriptor;
}

export interface WalkResult {
  chosen: ChosenCandidate | null;
  skipped: SkippedCandidate[];
}

export function replyReserve(model: ModelDescriptor): number {
  return model.max_output_tokens ?? DEFAULT_REPLY_RESERVE;
}

export function findModel(
  catalog: readonly ModelDescriptor[],
  provider: string,
  model: string,
): ModelDescriptor | undefined {
  return catalog.find((m) => m.provider === provider && m.model === model);
}

export function needsCredentials(model: ModelDescriptor, credentialProviders: ReadonlySet<string>) {
  return model.auth === "api_key" && !credentialProviders.has(model.provider);
}

export function fitsWindow(model: ModelDescriptor, requiredTokens: number): boolean {
  return requiredTokens + replyReserve(model) <= model.max_context_tokens;
}

/** The first failed check of one candidate, or the model when it is usable. */
export function checkCandidate(
  reference: string,
  env: CandidateEnvironment,
): ModelDescriptor | Omit<SkippedCandidate, "model"> {
  const ref = parseModelReference(reference);
  if (ref === null) return { check: "reference", reason: "not a 'provider/model' reference" };
  if (!env.known_providers.has(ref.provider)) {
    return { check: "provider", reason: `unknown provider '${ref.provider}'` };
  }
  const down = env.unavailable_providers?.get(ref.provider);
  if (down !== undefined) return { check: "listing", reason: `provider listing failed (${down})` };
  const model = findModel(env.catalog, ref.provider, ref.model);
  if (model === undefined) return { check: "catalog", reason: "not in the catalog" };
  if (needsCredentials(model, env.credential_providers)) {
    return { check: "credentials", reason: "missing credentials" };
  }
  if (env.local_required && !model.local) {
    return { check: "locality", reason: "remote model while local is required" };
  }
  if (env.local_barred && model.local) return { check: "local_mode", reason: "local mode deny" };
  for (const capability of CAPABILITIES) {
    if (
      env.requires_capabilities?.[capability] === true && model.capabilities[capability] !== true
    ) {
      return { check: "capability", reason: `missing capability '${capability}'` };
    }
  }
  for (const need of env.content_capabilities ?? []) {
    if (model.capabilities[need.capability] !== true) {
      return {
        check: "capability",
        reason: `missing capability '${need.capability}' (${need.because})`,
      };
    }
  }
  if (!fitsWindow(model, env.required_tokens)) {
    return {
      check: "window",
      reason: `context window too small (${env.required_tokens} + ${
        replyReserve(model)
      } > ${model.max_context_tokens} tokens)`,
    };
  }
  return model;
}

export function walkCandidates(
  references: readonly string[],
  env: CandidateEnvironment,
): WalkResult {
  const skipped: SkippedCandidate[] = [];
  for (const [position, reference] of references.entries()) {
    const outcome = checkCandidate(reference, env);
    if ("check" in outcome) skipped.push({ model: reference, ...outcome });
    else return { chosen: { position, reference, model: outcome }, skipped };
  }
  return { chosen: null, skipped };
}
