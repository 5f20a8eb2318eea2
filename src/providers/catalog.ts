import { CAPABILITIES, type Capabilities, type ModelDescriptor } from "../core/model.ts";
import { CATALOG, type CatalogEntry } from "./catalog_data.ts";
import type { ProviderEntry } from "./registry.ts";

/**
 * What a live listing, or an operator's model declaration, tells about one
 * model; every figure is optional. Prices are decimal strings.
 */
export interface LiveModel {
  id: string;
  display_name?: string;
  max_context_tokens?: number;
  max_output_tokens?: number;
  capabilities?: Capabilities;
  input_cost_per_million_tokens?: string;
  output_cost_per_million_tokens?: string;
  cache_read_cost_per_million_tokens?: string;
  cache_write_cost_per_million_tokens?: string;
}

const BY_ID = new Map<string, CatalogEntry>();
for (const entry of CATALOG) {
  for (const id of [entry.model, ...(entry.aliases ?? [])]) {
    BY_ID.set(`${entry.provider}/${id}`, entry);
  }
}

/** The shipped figures for a model id (or a dated snapshot of it) of a built-in provider. */
/** Built-in providers are named after their protocol; only they share the shipped catalog. */
const isBuiltIn = (provider: ProviderEntry) => provider.id === provider.protocol;

export function lookupCatalog(providerId: string, modelId: string): CatalogEntry | undefined {
  return BY_ID.get(`${providerId}/${modelId}`);
}

/**
 * Figures for a model the catalog does not know. Context windows are the
 * smallest a current model of that family offers, so routing under-fills
 * rather than overflows; only what every such model does is claimed.
 */
export interface UnknownModelDefaults {
  max_context_tokens: number;
  capabilities: Capabilities;
}

const BASIC: Capabilities = { streaming: true, system_prompt: true };

export function unknownModelDefaults(provider: ProviderEntry): UnknownModelDefaults {
  if (!isBuiltIn(provider)) return { max_context_tokens: 32_768, capabilities: BASIC };
  switch (provider.protocol) {
    case "openai":
      return { max_context_tokens: 128_000, capabilities: BASIC };
    case "anthropic":
      // Every Messages API model streams, takes a system prompt and calls tools.
      return { max_context_tokens: 200_000, capabilities: { ...BASIC, tools: true } };
    case "gemini":
      return { max_context_tokens: 32_768, capabilities: BASIC };
    case "ollama":
      return { max_context_tokens: 8_192, capabilities: BASIC };
  }
}

/**
 * Every capability flag in a fixed order (stable JSON). `memory` is the
 * service's own memory tool, offered to any model that can call tools.
 */
export function normaliseCapabilities(capabilities: Capabilities): Capabilities {
  const out: Capabilities = {};
  for (const flag of CAPABILITIES) out[flag] = capabilities[flag] === true;
  out.memory = out.tools === true;
  return out;
}

const positive = (n: number | undefined) =>
  n !== undefined && Number.isSafeInteger(n) && n > 0 ? n : undefined;

/**
 * One model of one provider. What the live listing (or the operator's
 * declaration) states wins: it describes what this credential actually gets.
 * The shipped catalog fills what the listing leaves out (prices, mostly), and
 * family defaults whatever neither knows.
 */
export function describeModel(provider: ProviderEntry, live: LiveModel): ModelDescriptor {
  const known = isBuiltIn(provider) ? lookupCatalog(provider.id, live.id) : undefined;
  const defaults = unknownModelDefaults(provider);
  const displayName = live.display_name ?? known?.display_name;
  const maxOutput = positive(live.max_output_tokens) ?? known?.max_output_tokens;
  const inputPrice = live.input_cost_per_million_tokens ?? known?.input_cost_per_million_tokens;
  const outputPrice = live.output_cost_per_million_tokens ??
    known?.output_cost_per_million_tokens;
  const cacheReadPrice = live.cache_read_cost_per_million_tokens ??
    known?.cache_read_cost_per_million_tokens;
  const cacheWritePrice = live.cache_write_cost_per_million_tokens ??
    known?.cache_write_cost_per_million_tokens;
  // Built in interface order, so the JSON of a descriptor is stable byte for byte.
  const descriptor: ModelDescriptor = {
    provider: provider.id,
    model: live.id,
    ...(displayName ? { display_name: displayName } : {}),
    local: provider.local,
    auth: provider.auth,
    capabilities: normaliseCapabilities({
      ...(known?.capabilities ?? defaults.capabilities),
      ...live.capabilities,
    }),
    max_context_tokens: positive(live.max_context_tokens) ?? known?.max_context_tokens ??
      defaults.max_context_tokens,
    ...(maxOutput !== undefined ? { max_output_tokens: maxOutput } : {}),
    ...(inputPrice !== undefined ? { input_cost_per_million_tokens: inputPrice } : {}),
    ...(outputPrice !== undefined ? { output_cost_per_million_tokens: outputPrice } : {}),
    ...(cacheReadPrice !== undefined ? { cache_read_cost_per_million_tokens: cacheReadPrice } : {}),
    ...(cacheWritePrice !== undefined
      ? { cache_write_cost_per_million_tokens: cacheWritePrice }
      : {}),
    default_parameters: {},
  };
  return descriptor;
}

/**
 * Merges a provider's live listing with the catalog: one descriptor per id,
 * sorted by model id. A dated snapshot the catalog knows also lists its
 * undated alias, so `anthropic/claude-haiku-4-5` routes when the provider
 * lists only `claude-haiku-4-5-20251001`.
 */
export function mergeListing(
  provider: ProviderEntry,
  live: readonly LiveModel[],
): ModelDescriptor[] {
  const byId = new Map<string, ModelDescriptor>();
  for (const model of live) {
    if (!byId.has(model.id)) byId.set(model.id, describeModel(provider, model));
    const known = isBuiltIn(provider) ? lookupCatalog(provider.id, model.id) : undefined;
    if (known && known.model !== model.id && !byId.has(known.model)) {
      byId.set(known.model, describeModel(provider, { ...model, id: known.model }));
    }
  }
  return [...byId.values()].sort((a, b) => compare(a.model, b.model));
}

const SHIPPED = new WeakMap<ProviderEntry, readonly ModelDescriptor[]>();

/**
 * The shipped catalog of a provider as descriptors, for when no listing is at
 * hand. Every request routing without a provider's listing needs it, so it is
 * built once per registry entry and frozen: nobody can change what others share.
 */
export function catalogDescriptors(provider: ProviderEntry): readonly ModelDescriptor[] {
  let descriptors = SHIPPED.get(provider);
  if (descriptors === undefined) {
    const ids = isBuiltIn(provider)
      ? CATALOG.filter((e) => e.provider === provider.id).map((e) => ({ id: e.model }))
      : [];
    descriptors = Object.freeze(mergeListing(provider, ids).map(deepFreeze));
    SHIPPED.set(provider, descriptors);
  }
  return descriptors;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** Code-unit order: the same under every runtime and locale. */
export const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
