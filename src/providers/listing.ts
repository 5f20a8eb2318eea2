import type { ModelDescriptor, UnavailableEntry } from "../core/model.ts";
import { catalogDescriptors, compare, type LiveModel, mergeListing } from "./catalog.ts";
import {
  credentialFingerprint,
  credentialHeaderName,
  type ProviderCredentials,
} from "./credentials.ts";
import { ProviderError, unavailableReasonOf } from "./errors.ts";
import { listAnthropicModels } from "./listing_anthropic.ts";
import { listGeminiModels } from "./listing_gemini.ts";
import type { ListingContext } from "./listing_http.ts";
import { listOllamaModels } from "./listing_ollama.ts";
import { listOpenAiModels } from "./listing_openai.ts";
import { ListingTimeout, type ModelCache, untilAborted } from "./model_cache.ts";
import type { ProviderEntry, Registry, WireProtocol } from "./registry.ts";

export interface ListingResult {
  /** Sorted by provider id, then model id. */
  models: ModelDescriptor[];
  /** Sorted by provider id; empty when every provider was listed. */
  unavailable: UnavailableEntry[];
}

/** Listings cached per provider and credential: one cache per service instance. */
export type ListingCache = ModelCache<ModelDescriptor[]>;

export interface ListingOptions {
  /** Per-provider deadline in milliseconds (see `listingTimeoutMs`). */
  deadlineMs: number;
  fetch?: typeof fetch;
  cache?: ListingCache;
}

type Lister = (
  provider: ProviderEntry,
  key: string | undefined,
  ctx: ListingContext,
) => Promise<LiveModel[]>;

const LISTERS: Record<WireProtocol, Lister> = {
  openai: listOpenAiModels,
  anthropic: listAnthropicModels,
  gemini: listGeminiModels,
  ollama: listOllamaModels,
};

type ProviderOutcome = { models: ModelDescriptor[] } | { unavailable: UnavailableEntry };

async function listProvider(
  provider: ProviderEntry,
  credentials: ProviderCredentials,
  options: ListingOptions,
): Promise<ProviderOutcome> {
  const key = credentials.get(provider.id);
  if (provider.auth === "api_key" && key === undefined) {
    const message = `missing credentials: send the ${credentialHeaderName(provider.id)} header`;
    return { unavailable: { provider: provider.id, reason: "missing_credentials", message } };
  }
  // Configured models replace the listing: the operator named what the server serves.
  if (provider.models !== undefined) {
    return { models: mergeListing(provider, provider.models) };
  }
  const fetcher = options.fetch ?? globalThis.fetch;
  const load = async (signal: AbortSignal) =>
    mergeListing(
      provider,
      await LISTERS[provider.protocol](provider, key, { fetch: fetcher, signal }),
    );
  const cacheKey = options.cache &&
    `${provider.id}\n${provider.base_url}\n${credentialFingerprint(key)}`;
  // What the cache holds needs no deadline (nor its timer).
  const held = options.cache && cacheKey ? options.cache.peek(cacheKey) : undefined;
  if (held !== undefined) {
    return "value" in held ? { models: held.value } : failed(provider, held.error);
  }

  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), options.deadlineMs);
  try {
    const models = options.cache && cacheKey
      ? await options.cache.get(cacheKey, load, { signal: deadline.signal, ms: options.deadlineMs })
      : await untilAborted(load(deadline.signal), deadline.signal);
    return { models };
  } catch (error) {
    return failed(
      provider,
      deadline.signal.aborted ? new ListingTimeout(options.deadlineMs) : error,
    );
  } finally {
    clearTimeout(timer);
  }
}

/** A provider whose listing failed, as `unavailable` reports it. */
function failed(provider: ProviderEntry, error: unknown): ProviderOutcome {
  if (error instanceof ListingTimeout) {
    const message = `${provider.id}: ${error.message}`;
    return { unavailable: { provider: provider.id, reason: "timeout", message } };
  }
  if (error instanceof ProviderError) {
    const reason = unavailableReasonOf(error.category);
    return { unavailable: { provider: provider.id, reason, message: error.message } };
  }
  const message = `${provider.id}: model listing failed`;
  return { unavailable: { provider: provider.id, reason: "unknown", message } };
}

/**
 * Lists every provider of the registry in parallel, each under its own
 * deadline. A provider that needs a key and has none is reported
 * `missing_credentials` without being called; keyless and optional-key
 * providers are listed without one.
 */
export async function listModels(
  registry: Registry,
  credentials: ProviderCredentials,
  options: ListingOptions,
): Promise<ListingResult> {
  const outcomes = await Promise.all(
    registry.providers.map((p) => listProvider(p, credentials, options)),
  );
  const models: ModelDescriptor[] = [];
  const unavailable: UnavailableEntry[] = [];
  for (const outcome of outcomes) {
    if ("models" in outcome) models.push(...outcome.models);
    else unavailable.push(outcome.unavailable);
  }
  models.sort((a, b) => compare(a.provider, b.provider) || compare(a.model, b.model));
  unavailable.sort((a, b) => compare(a.provider, b.provider));
  return { models, unavailable };
}

/** The body of GET /llm/models: `unavailable` is absent when every provider was listed. */
export function modelsResponseBody(
  result: ListingResult,
): { models: ModelDescriptor[]; unavailable?: UnavailableEntry[] } {
  return result.unavailable.length === 0
    ? { models: result.models }
    : { models: result.models, unavailable: result.unavailable };
}

/**
 * The catalog routing decides on: the listed models, plus the shipped catalog
 * of every provider that could not be listed. Routing can then tell an
 * unknown model from a known one whose credentials are missing, and a turn on
 * a provider whose listing failed meets the provider's own error.
 */
export function routingCatalog(registry: Registry, result: ListingResult): ModelDescriptor[] {
  const unlisted = new Set(result.unavailable.map((u) => u.provider));
  const extra = registry.providers.filter((p) => unlisted.has(p.id)).flatMap(catalogDescriptors);
  return [...result.models, ...extra].sort((a, b) =>
    compare(a.provider, b.provider) || compare(a.model, b.model)
  );
}

export const DEFAULT_LISTING_TIMEOUT_MS = 10_000;
export const MAX_LISTING_TIMEOUT_MS = 60_000;

/**
 * The `X-Router-Timeout-Ms` rule: an integer of milliseconds; missing, zero,
 * negative or non-numeric gives the default 10000; above 60000 is clamped.
 */
export function listingTimeoutMs(header: string | null | undefined): number {
  const text = header?.trim() ?? "";
  if (!/^\d+$/.test(text)) return DEFAULT_LISTING_TIMEOUT_MS;
  const value = Number(text);
  if (value === 0) return DEFAULT_LISTING_TIMEOUT_MS;
  return Math.min(value, MAX_LISTING_TIMEOUT_MS);
}
