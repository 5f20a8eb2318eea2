import type { Capabilities } from "../core/model.ts";

/**
 * Figures the providers publish for their models: context window, output
 * limit, standard (short-context, non-batch) prices in USD per million tokens,
 * and capabilities. Tiered long-context prices (OpenAI above 272K input tokens,
 * Gemini 2.5 Pro above 200K) are not modelled: the base price is listed.
 * Cache prices (decisions.md §15) are in `CACHE_PRICES` below.
 * An optional figure nobody published is left out, never guessed.
 */
export interface CatalogEntry {
  provider: "openai" | "anthropic" | "gemini";
  model: string;
  /** Other ids the provider lists for the same model (dated snapshots). */
  aliases?: readonly string[];
  display_name: string;
  capabilities: Capabilities;
  max_context_tokens: number;
  max_output_tokens?: number;
  input_cost_per_million_tokens?: string;
  output_cost_per_million_tokens?: string;
  cache_read_cost_per_million_tokens?: string;
  cache_write_cost_per_million_tokens?: string;
}

const ALL: Capabilities = {
  streaming: true,
  tools: true,
  json_output: true,
  system_prompt: true,
  images: true,
  reasoning: true,
};
const NO_REASONING: Capabilities = { ...ALL, reasoning: false };

type Figures = [display: string, context: number, output: number, input$: string, output$: string];

function entry(
  provider: CatalogEntry["provider"],
  model: string,
  [display_name, context, output, inputPrice, outputPrice]: Figures,
  capabilities: Capabilities = ALL,
  aliases?: string[],
): CatalogEntry {
  return {
    provider,
    model,
    ...(aliases ? { aliases } : {}),
    display_name,
    capabilities,
    max_context_tokens: context,
    max_output_tokens: output,
    input_cost_per_million_tokens: inputPrice,
    output_cost_per_million_tokens: outputPrice,
  };
}

// OpenAI: developers.openai.com/api/docs/models/<model> and /api/docs/pricing.
const OPENAI: CatalogEntry[] = [
  entry("openai", "gpt-5.5", ["GPT-5.5", 1_050_000, 128_000, "5", "30"]),
  entry("openai", "gpt-5.4", ["GPT-5.4", 1_050_000, 128_000, "2.5", "15"]),
  entry("openai", "gpt-5.4-mini", ["GPT-5.4 mini", 400_000, 128_000, "0.75", "4.5"]),
  entry("openai", "gpt-5.4-nano", ["GPT-5.4 nano", 400_000, 128_000, "0.2", "1.25"]),
  entry("openai", "gpt-5", ["GPT-5", 400_000, 128_000, "1.25", "10"]),
  entry("openai", "gpt-5-mini", ["GPT-5 mini", 400_000, 128_000, "0.25", "2"]),
  entry("openai", "gpt-5-nano", ["GPT-5 nano", 400_000, 128_000, "0.05", "0.4"]),
  entry("openai", "o3", ["o3", 200_000, 100_000, "2", "8"]),
  entry("openai", "o4-mini", ["o4-mini", 200_000, 100_000, "1.1", "4.4"]),
  entry("openai", "gpt-4.1", ["GPT-4.1", 1_047_576, 32_768, "2", "8"], NO_REASONING),
  entry("openai", "gpt-4.1-mini", ["GPT-4.1 mini", 1_047_576, 32_768, "0.4", "1.6"], NO_REASONING),
  entry("openai", "gpt-4.1-nano", ["GPT-4.1 nano", 1_047_576, 32_768, "0.1", "0.4"], NO_REASONING),
  entry("openai", "gpt-4o", ["GPT-4o", 128_000, 16_384, "2.5", "10"], NO_REASONING),
  entry("openai", "gpt-4o-mini", ["GPT-4o mini", 128_000, 16_384, "0.15", "0.6"], NO_REASONING),
];

// Anthropic: platform.claude.com/docs/en/models/<family>/overview.
const ANTHROPIC: CatalogEntry[] = [
  entry("anthropic", "claude-opus-4-8", ["Claude Opus 4.8", 1_000_000, 128_000, "5", "25"]),
  entry("anthropic", "claude-opus-4-7", ["Claude Opus 4.7", 1_000_000, 128_000, "5", "25"]),
  entry("anthropic", "claude-opus-4-6", ["Claude Opus 4.6", 1_000_000, 128_000, "5", "25"]),
  entry("anthropic", "claude-opus-4-5", ["Claude Opus 4.5", 200_000, 64_000, "5", "25"], ALL, [
    "claude-opus-4-5-20251101",
  ]),
  entry("anthropic", "claude-sonnet-4-6", ["Claude Sonnet 4.6", 1_000_000, 128_000, "3", "15"]),
  entry("anthropic", "claude-sonnet-4-5", ["Claude Sonnet 4.5", 200_000, 64_000, "3", "15"], ALL, [
    "claude-sonnet-4-5-20250929",
  ]),
  entry("anthropic", "claude-haiku-4-5", ["Claude Haiku 4.5", 200_000, 64_000, "1", "5"], ALL, [
    "claude-haiku-4-5-20251001",
  ]),
];

// Google: ai.google.dev/gemini-api/docs/models/<model> and /gemini-api/docs/pricing
// (paid tier, text input); every one has a 1,048,576-token input and 65,536-token output limit.
const GEMINI: CatalogEntry[] = [
  entry("gemini", "gemini-3.5-flash", ["Gemini 3.5 Flash", 1_048_576, 65_536, "1.5", "9"]),
  entry("gemini", "gemini-3-flash-preview", [
    "Gemini 3 Flash Preview",
    1_048_576,
    65_536,
    "0.5",
    "3",
  ]),
  entry("gemini", "gemini-2.5-pro", ["Gemini 2.5 Pro", 1_048_576, 65_536, "1.25", "10"]),
  entry("gemini", "gemini-2.5-flash", ["Gemini 2.5 Flash", 1_048_576, 65_536, "0.3", "2.5"]),
  entry("gemini", "gemini-2.5-flash-lite", [
    "Gemini 2.5 Flash-Lite",
    1_048_576,
    65_536,
    "0.1",
    "0.4",
  ]),
];

/**
 * Prompt-cache prices per million tokens, [read, write], from the same price
 * lists: a read is a prompt token served from the provider's cache (OpenAI's
 * "cached input", Anthropic's "cache hits", Gemini's "context caching"), a
 * write one stored in it (Anthropic's 5-minute cache write, 1.25× input; a
 * 1-hour write costs 2× and is priced as this one). OpenAI and Gemini charge
 * no write premium and report no writes: theirs is left out and prices as
 * input. Gemini's cache storage per hour applies to explicit caches only,
 * which the service never creates.
 */
const CACHE_PRICES: Record<string, readonly [read: string, write?: string]> = {
  "openai/gpt-5.5": ["0.5"],
  "openai/gpt-5.4": ["0.25"],
  "openai/gpt-5.4-mini": ["0.075"],
  "openai/gpt-5.4-nano": ["0.02"],
  "openai/gpt-5": ["0.125"],
  "openai/gpt-5-mini": ["0.025"],
  "openai/gpt-5-nano": ["0.005"],
  "openai/o3": ["0.5"],
  "openai/o4-mini": ["0.275"],
  "openai/gpt-4.1": ["0.5"],
  "openai/gpt-4.1-mini": ["0.1"],
  "openai/gpt-4.1-nano": ["0.025"],
  "openai/gpt-4o": ["1.25"],
  "openai/gpt-4o-mini": ["0.075"],
  "anthropic/claude-opus-4-8": ["0.5", "6.25"],
  "anthropic/claude-opus-4-7": ["0.5", "6.25"],
  "anthropic/claude-opus-4-6": ["0.5", "6.25"],
  "anthropic/claude-opus-4-5": ["0.5", "6.25"],
  "anthropic/claude-sonnet-4-6": ["0.3", "3.75"],
  "anthropic/claude-sonnet-4-5": ["0.3", "3.75"],
  "anthropic/claude-haiku-4-5": ["0.1", "1.25"],
  "gemini/gemini-3.5-flash": ["0.15"],
  "gemini/gemini-3-flash-preview": ["0.05"],
  "gemini/gemini-2.5-pro": ["0.125"],
  "gemini/gemini-2.5-flash": ["0.03"],
  "gemini/gemini-2.5-flash-lite": ["0.01"],
};

function withCachePrices(entry: CatalogEntry): CatalogEntry {
  const prices = CACHE_PRICES[`${entry.provider}/${entry.model}`];
  if (prices === undefined) return entry;
  const [read, write] = prices;
  return {
    ...entry,
    cache_read_cost_per_million_tokens: read,
    ...(write === undefined ? {} : { cache_write_cost_per_million_tokens: write }),
  };
}

export const CATALOG: readonly CatalogEntry[] = [...OPENAI, ...ANTHROPIC, ...GEMINI].map(
  withCachePrices,
);
