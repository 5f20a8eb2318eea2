/**
 * Money (decisions.md §10, §15): exact decimal arithmetic with big.js, never
 * JS numbers. cost = uncached input × input price + cache reads × cache read
 * price + cache writes × cache write price + output × output price, each per
 * 10^6 tokens, where the uncached input is the prompt tokens neither read from
 * nor written to a cache; a cache price a model does not declare is its input
 * price, so cost is never under-stated. Results are decimal strings in plain
 * notation, trailing zeros trimmed, zero as "0".
 */
import Big from "big.js";
import type { ModelDescriptor } from "./model.ts";
import { CURRENCY } from "./vocabulary.ts";

/** Multiplying by 10^-6 instead of dividing keeps the arithmetic exact. */
const PER_MILLION = new Big("0.000001");

export type Prices = Pick<
  ModelDescriptor,
  | "input_cost_per_million_tokens"
  | "output_cost_per_million_tokens"
  | "cache_read_cost_per_million_tokens"
  | "cache_write_cost_per_million_tokens"
>;

/** The cached part of a call's prompt tokens, as the provider reported it. */
export interface CacheTokens {
  read?: number;
  write?: number;
}

/** Plain notation; big.js keeps no trailing zeros; negative zero reads "0". */
export function formatDecimal(value: Big): string {
  return value.eq(0) ? "0" : value.toFixed();
}

/** True for a non-negative decimal string in plain or exponent-free notation. */
export function isDecimalString(value: string): boolean {
  return /^(0|[1-9][0-9]*)(\.[0-9]+)?$/.test(value);
}

function priced(tokens: number, pricePerMillion: string | undefined): Big {
  if (pricePerMillion === undefined) return new Big(0);
  return new Big(tokens).times(pricePerMillion).times(PER_MILLION);
}

export function hasPrices(prices: Prices): boolean {
  return prices.input_cost_per_million_tokens !== undefined ||
    prices.output_cost_per_million_tokens !== undefined ||
    prices.cache_read_cost_per_million_tokens !== undefined ||
    prices.cache_write_cost_per_million_tokens !== undefined;
}

/**
 * Cost of a usage record. `inputTokens` counts every prompt token, the cached
 * ones (`cache`) included. A model that declares no price at all costs `null`
 * (unknown), unless it is local: local models report zero cost (interface.md,
 * turn stream events). Declared prices win even for a local model.
 */
export function usageCost(
  prices: Prices & { local?: boolean },
  inputTokens: number,
  outputTokens: number,
  cache: CacheTokens = {},
): string | null {
  if (!hasPrices(prices)) return prices.local === true ? "0" : null;
  const read = cache.read ?? 0;
  const write = cache.write ?? 0;
  // A provider never reports more cached tokens than prompt tokens; if one did, none is free.
  const uncached = Math.max(0, inputTokens - read - write);
  const input = prices.input_cost_per_million_tokens;
  return formatDecimal(
    priced(uncached, input)
      .plus(priced(read, prices.cache_read_cost_per_million_tokens ?? input))
      .plus(priced(write, prices.cache_write_cost_per_million_tokens ?? input))
      .plus(priced(outputTokens, prices.output_cost_per_million_tokens)),
  );
}

export interface CostEstimate {
  min: string;
  max: string;
  currency: string;
}

/**
 * Preview range: `min` prices the estimated input; `max` adds the reply
 * reserve priced as output. No declared prices: a zero range. A price that
 * is missing while the other is declared counts as zero.
 */
export function estimateCost(
  prices: Prices,
  inputTokens: number,
  replyReserveTokens: number,
): CostEstimate {
  const min = priced(inputTokens, prices.input_cost_per_million_tokens);
  const max = min.plus(priced(replyReserveTokens, prices.output_cost_per_million_tokens));
  return { min: formatDecimal(min), max: formatDecimal(max), currency: CURRENCY };
}

/**
 * The most `inputTokens` prompt tokens can cost, however the provider's cache
 * splits them: each priced at the highest of the input, cache read and cache
 * write prices (a prompt written whole to Anthropic's cache costs 1.25× its
 * input price). For a reservation that the call's real cost can never pass.
 */
export function inputCostCeiling(prices: Prices, inputTokens: number): string {
  const input = prices.input_cost_per_million_tokens;
  const candidates = [
    input,
    prices.cache_read_cost_per_million_tokens ?? input,
    prices.cache_write_cost_per_million_tokens ?? input,
  ].filter((p): p is string => p !== undefined);
  if (candidates.length === 0) return "0";
  const highest = candidates.reduce((a, b) => (new Big(b).gt(a) ? b : a));
  return formatDecimal(priced(inputTokens, highest));
}

/** Whether an estimate's `max` exceeds a rule's `cost_limit` (both decimal strings). */
export function exceedsCostLimit(limit: string, max: string): boolean {
  return new Big(max).gt(new Big(limit));
}

/** Exact sum of decimal strings, for usage totals. */
export function sumDecimals(values: readonly string[]): string {
  return formatDecimal(values.reduce((sum, v) => sum.plus(v), new Big(0)));
}
