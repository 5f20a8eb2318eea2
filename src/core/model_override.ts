/**
 * An `explicit_model` override (decisions.md §5): no fallbacks and no rule
 * gates, refused in this order: malformed reference, malformed provider id,
 * unknown provider, model not in the catalog, remote model while local is
 * required (or local model while local models are barred), missing credential,
 * a provider whose listing failed for this request; then a window that cannot
 * fit the required context. A provider that could not be listed cannot say
 * whether it has the model, so its failure answers before `unknown_model`.
 */
import { findModel, fitsWindow, needsCredentials, replyReserve } from "./candidate_walk.ts";
import { type ErrorCode, fail, ok, type Outcome } from "./errors.ts";
import type { ModelDescriptor } from "./model.ts";
import { isWellFormedProviderId, parseModelReference } from "./model_reference.ts";
import type { LocalReason } from "./locality.ts";

export interface OverrideEnvironment {
  catalog: readonly ModelDescriptor[];
  known_providers: ReadonlySet<string>;
  credential_providers: ReadonlySet<string>;
  /** Providers whose listing failed for this request, with the listing's reason. */
  unavailable_providers?: ReadonlyMap<string, string>;
  local_reasons: readonly LocalReason[];
  local_barred: boolean;
  required_tokens: number;
  is_valid_provider_id?: (id: string) => boolean;
}

/** A failed listing as the error an override meets; every one answers 503. */
function providerDown(provider: string, model: string, reason: string): Outcome<never> {
  const code: ErrorCode = reason === "invalid_credentials"
    ? "invalid_provider_credentials"
    : reason === "authentication"
    ? "provider_authentication"
    : "provider_unavailable";
  return fail(code, `provider unavailable: '${provider}' could not be listed (${reason})`, {
    provider,
    model,
    reason,
  });
}

export function resolveOverride(
  reference: string,
  env: OverrideEnvironment,
): Outcome<ModelDescriptor> {
  const field = "input.explicit_model";
  const ref = parseModelReference(reference);
  if (ref === null) {
    return fail(
      "invalid_model_reference",
      `invalid model reference: expected 'provider/model', got '${reference}'`,
      { path: field, reference },
    );
  }
  const validProvider = env.is_valid_provider_id ?? isWellFormedProviderId;
  if (!validProvider(ref.provider)) {
    return fail("invalid_provider_name", `invalid provider name: '${ref.provider}'`, {
      path: field,
      provider: ref.provider,
    });
  }
  if (!env.known_providers.has(ref.provider)) {
    return fail("unknown_provider", `unknown provider: '${ref.provider}'`, {
      path: field,
      provider: ref.provider,
    });
  }
  const model = findModel(env.catalog, ref.provider, ref.model);
  const down = env.unavailable_providers?.get(ref.provider);
  if (model === undefined && down !== undefined) return providerDown(ref.provider, ref.model, down);
  if (model === undefined) {
    return fail("unknown_model", `unknown model: '${reference}' is not in the catalog`, {
      path: field,
      provider: ref.provider,
      model: ref.model,
    });
  }
  if (env.local_reasons.length > 0 && !model.local) {
    return fail(
      "override_not_allowed",
      `model override not allowed: '${reference}' is remote and this turn must stay local`,
      {
        path: field,
        provider: ref.provider,
        model: ref.model,
        local_required: [...env.local_reasons],
      },
    );
  }
  if (env.local_barred && model.local) {
    return fail(
      "override_not_allowed",
      `model override not allowed: privacy.local.mode is deny and the turn requires workspace content`,
      { path: field, provider: ref.provider, model: ref.model },
    );
  }
  if (needsCredentials(model, env.credential_providers)) {
    return fail(
      "missing_provider_credentials",
      `missing provider credentials: '${ref.provider}' needs an API key header`,
      { provider: ref.provider, model: ref.model },
    );
  }
  if (down !== undefined) return providerDown(ref.provider, ref.model, down);
  if (!fitsWindow(model, env.required_tokens)) {
    return fail(
      "context_window_exceeded",
      `context window exceeded: '${reference}' holds ${model.max_context_tokens} tokens, the turn needs ${env.required_tokens} plus a reply reserve of ${
        replyReserve(model)
      }`,
      {
        provider: ref.provider,
        model: ref.model,
        required_tokens: env.required_tokens,
        reply_reserve: replyReserve(model),
        max_context_tokens: model.max_context_tokens,
      },
    );
  }
  return ok(model);
}
