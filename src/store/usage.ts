/**
 * Cost events, the source of the usage report (interface.md, Trace events).
 * A token count the provider never reported stays NULL, never 0; a cost is a
 * decimal string, NULL when the model declares no prices. In an encrypted
 * session the figures are sealed: the event is marked `sealed` and keeps only
 * provider, model and task type readable (decisions.md §8).
 */
import type { Queryable } from "./db.ts";

export interface UsageEventRow {
  seq: number;
  trace_id: string;
  provider: string;
  model: string;
  task_type: string;
  input_tokens: number | null;
  output_tokens: number | null;
  cached_tokens: number | null;
  cache_write_tokens: number | null;
  reasoning_tokens: number | null;
  cost: string | null;
  currency: string;
  sealed: boolean;
  created_at: Date;
}

export interface NewUsageEvent {
  sessionId: string;
  traceId: string;
  provider: string;
  model: string;
  taskType: string;
  inputTokens?: number | null;
  outputTokens?: number | null;
  /** Prompt tokens read from the provider's cache. */
  cachedTokens?: number | null;
  /** Prompt tokens written to the provider's cache. */
  cacheWriteTokens?: number | null;
  reasoningTokens?: number | null;
  /** Decimal string in plain notation (see core/cost.ts); null when unpriced. */
  cost?: string | null;
  currency?: string;
  /** True in encrypted sessions: token and cost figures are then not stored at all. */
  sealed?: boolean;
  now: Date;
}

/** The row of an event as the batched turn writes take it; sealed figures are never stored. */
export function usageRecord(e: NewUsageEvent) {
  const figure = <T>(value: T | null | undefined): T | null => e.sealed ? null : value ?? null;
  return {
    session_id: e.sessionId,
    trace_id: e.traceId,
    provider: e.provider,
    model: e.model,
    task_type: e.taskType,
    input_tokens: figure(e.inputTokens),
    output_tokens: figure(e.outputTokens),
    cached_tokens: figure(e.cachedTokens),
    cache_write_tokens: figure(e.cacheWriteTokens),
    reasoning_tokens: figure(e.reasoningTokens),
    cost: figure(e.cost),
    currency: e.currency ?? "USD",
    sealed: e.sealed ?? false,
    created_at: e.now.toISOString(),
  };
}

export async function appendUsageEvent(db: Queryable, e: NewUsageEvent): Promise<void> {
  const figure = <T>(value: T | null | undefined): T | null => e.sealed ? null : value ?? null;
  await db.query(
    `INSERT INTO usage_events (session_id, trace_id, provider, model, task_type, input_tokens,
                               output_tokens, cached_tokens, cache_write_tokens, reasoning_tokens,
                               cost, currency, sealed, created_at)
     VALUES (switchyard_held_session($1), $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::numeric, $12,
             $13, $14)`,
    [
      e.sessionId,
      e.traceId,
      e.provider,
      e.model,
      e.taskType,
      figure(e.inputTokens),
      figure(e.outputTokens),
      figure(e.cachedTokens),
      figure(e.cacheWriteTokens),
      figure(e.reasoningTokens),
      figure(e.cost),
      e.currency ?? "USD",
      e.sealed ?? false,
      e.now,
    ],
  );
}

/** Every cost event of a session, in the order recorded. */
export async function listUsageEvents(db: Queryable, sessionId: string): Promise<UsageEventRow[]> {
  // Ordered by the qualified column: a bare `seq` would name the text output column.
  const rows = await db.query<UsageEventRow>(
    `SELECT seq::text AS seq, trace_id, provider, model, task_type, input_tokens, output_tokens,
            cached_tokens, cache_write_tokens, reasoning_tokens, cost::text AS cost, currency,
            sealed, created_at
     FROM usage_events WHERE session_id = $1 ORDER BY usage_events.seq`,
    [sessionId],
  );
  return rows.map((row) => ({ ...row, seq: Number(row.seq) }));
}
