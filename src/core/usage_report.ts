/**
 * The usage report of a session (interface.md, Usage report; decisions.md §8,
 * §10), built from its cost events in the order recorded.
 *
 * - Buckets (by provider and model, by task type) appear in first-seen order.
 * - Tokens: a count is shown when at least one event of the bucket reported
 *   it, and is the sum of the reported values; events that did not report it
 *   add nothing (never zero-filled). A count no event reported is omitted.
 *   `total_tokens` is shown when either count is, as the sum of those shown.
 *   With no events at all the total shows zero counts (decisions.md §10).
 *   The cache counts (`cache_read_tokens`, `cache_write_tokens`: the part of
 *   the input read from and written to the provider's cache, decisions.md
 *   §15) are shown where their sum is non-zero.
 * - Cost: an exact big.js sum of the events' costs; an unpriced event (cost
 *   null) adds nothing, as an unpriced model previews at "0" (decisions.md
 *   §10). Plain notation, trailing zeros trimmed, zero as "0".
 * - Encrypted session: the figures are sealed, so entries carry only
 *   provider, model, task type and request count, and the total only its
 *   currency, whether or not there are events.
 */
import Big from "big.js";
import { formatDecimal } from "./cost.ts";
import { CURRENCY } from "./vocabulary.ts";

export interface CostEvent {
  provider: string;
  model: string;
  task_type: string;
  input_tokens: number | null;
  output_tokens: number | null;
  /** Prompt tokens read from the provider's cache (the store's column name). */
  cached_tokens?: number | null;
  /** Prompt tokens written to the provider's cache. */
  cache_write_tokens?: number | null;
  /** Decimal string; null when the model declares no prices. */
  cost: string | null;
}

interface TokenCounts {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_tokens?: number;
  cache_write_tokens?: number;
}

export interface UsageTotal extends TokenCounts {
  total_tokens?: number;
  estimated_cost?: string;
  currency: string;
}

export interface UsageByModel extends TokenCounts {
  provider: string;
  model: string;
  total_tokens?: number;
  estimated_cost?: string;
  currency?: string;
  request_count: number;
}

export interface UsageByTaskType extends TokenCounts {
  task_type: string;
  estimated_cost?: string;
  request_count: number;
}

export interface UsageReport {
  total: UsageTotal;
  by_model: UsageByModel[];
  by_task_type: UsageByTaskType[];
}

interface Bucket {
  input?: number;
  output?: number;
  cacheRead: number;
  cacheWrite: number;
  cost: Big;
  count: number;
}

const emptyBucket = (): Bucket => ({ cacheRead: 0, cacheWrite: 0, cost: new Big(0), count: 0 });

function add(bucket: Bucket, e: CostEvent): void {
  if (e.input_tokens !== null) bucket.input = (bucket.input ?? 0) + e.input_tokens;
  if (e.output_tokens !== null) bucket.output = (bucket.output ?? 0) + e.output_tokens;
  bucket.cacheRead += e.cached_tokens ?? 0;
  bucket.cacheWrite += e.cache_write_tokens ?? 0;
  if (e.cost !== null) bucket.cost = bucket.cost.plus(e.cost);
  bucket.count += 1;
}

function tokens(b: Bucket): TokenCounts {
  return {
    ...(b.input === undefined ? {} : { input_tokens: b.input }),
    ...(b.output === undefined ? {} : { output_tokens: b.output }),
    ...(b.cacheRead === 0 ? {} : { cache_read_tokens: b.cacheRead }),
    ...(b.cacheWrite === 0 ? {} : { cache_write_tokens: b.cacheWrite }),
  };
}

function totalTokens(b: Bucket): { total_tokens?: number } {
  if (b.input === undefined && b.output === undefined) return {};
  return { total_tokens: (b.input ?? 0) + (b.output ?? 0) };
}

/** Groups events by `keyOf`, keeping the first-seen order of the keys. */
function group(
  events: readonly CostEvent[],
  keyOf: (e: CostEvent) => string,
): { first: CostEvent; bucket: Bucket }[] {
  const groups = new Map<string, { first: CostEvent; bucket: Bucket }>();
  for (const e of events) {
    const key = keyOf(e);
    const g = groups.get(key) ?? { first: e, bucket: emptyBucket() };
    add(g.bucket, e);
    groups.set(key, g);
  }
  return [...groups.values()];
}

export function usageReport(
  events: readonly CostEvent[],
  options: { encrypted: boolean },
): UsageReport {
  // A JSON pair keeps provider and model apart whatever characters they contain.
  const models = group(events, (e) => JSON.stringify([e.provider, e.model]));
  const tasks = group(events, (e) => e.task_type);
  if (options.encrypted) {
    return {
      total: { currency: CURRENCY },
      by_model: models.map(({ first, bucket }) => ({
        provider: first.provider,
        model: first.model,
        request_count: bucket.count,
      })),
      by_task_type: tasks.map(({ first, bucket }) => ({
        task_type: first.task_type,
        request_count: bucket.count,
      })),
    };
  }
  const all = emptyBucket();
  for (const e of events) add(all, e);
  if (events.length === 0) Object.assign(all, { input: 0, output: 0 });
  return {
    total: {
      ...tokens(all),
      ...totalTokens(all),
      estimated_cost: formatDecimal(all.cost),
      currency: CURRENCY,
    },
    by_model: models.map(({ first, bucket }) => ({
      provider: first.provider,
      model: first.model,
      ...tokens(bucket),
      ...totalTokens(bucket),
      estimated_cost: formatDecimal(bucket.cost),
      currency: CURRENCY,
      request_count: bucket.count,
    })),
    by_task_type: tasks.map(({ first, bucket }) => ({
      task_type: first.task_type,
      ...tokens(bucket),
      estimated_cost: formatDecimal(bucket.cost),
      request_count: bucket.count,
    })),
  };
}
