/**
 * The turn response envelope `{ status, data, allowed_continuations }`
 * (interface.md "Turn response envelope", decisions.md §7), one builder per
 * status, with keys in a fixed order so equal turns give identical JSON. The
 * same object, tagged `type: "turn_end"`, ends a stream (turn_stream_events.ts).
 */
import type { PendingApproval } from "./approvals.ts";
import type { ClassificationResult } from "./classification.ts";
import { excludedStrings, includedStrings } from "./context_fill.ts";
import type { ContextSelection } from "./context_fill.ts";
import { allowedContinuations, type ContinuationKind, type TurnStatus } from "./continuation.ts";
import { type Prices, usageCost } from "./cost.ts";
import type { Failure } from "./errors.ts";
import { classificationBody } from "./preview.ts";
import type { RoutingDecision } from "./routing.ts";
import type { Envelope } from "./sealed_envelope.ts";
import type { ToolRequest } from "./tool_mediation.ts";
import { CURRENCY, type Intent } from "./vocabulary.ts";

export interface TurnMessage {
  role: string;
  content: string;
  provider?: string;
  model?: string;
}

export interface TurnRouting {
  task_type: Intent;
  provider: string;
  model: string;
  matched_rule: string | null;
  fallback_used: boolean;
  override_used: boolean;
}

export interface TurnUsage {
  input_tokens?: number;
  output_tokens?: number;
  /** Prompt tokens read from the provider's cache (part of `input_tokens`); shown when non-zero. */
  cache_read_tokens?: number;
  /** Prompt tokens written to the provider's cache (part of `input_tokens`); shown when non-zero. */
  cache_write_tokens?: number;
  estimated_cost: string;
  currency: string;
}

export interface CompletedData {
  message: TurnMessage;
  classification: ClassificationResult;
  routing: TurnRouting;
  context: { included: string[]; excluded: string[] };
  usage: TurnUsage;
  trace_id: string;
  to_encrypt: Record<string, string>;
}

export interface TurnEnvelope {
  status: TurnStatus;
  data: Record<string, unknown>;
  allowed_continuations: ContinuationKind[];
}

export function turnRouting(intent: Intent, routing: RoutingDecision): TurnRouting {
  return {
    task_type: intent,
    provider: routing.model.provider,
    model: routing.model.model,
    matched_rule: routing.rule?.name ?? null,
    fallback_used: routing.fallback_used,
    override_used: routing.override_used,
  };
}

export function turnContext(selection: ContextSelection): CompletedData["context"] {
  return { included: includedStrings(selection), excluded: excludedStrings(selection) };
}

/** Counts as the provider reported them; a count never reported stays absent. */
export interface ReportedUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_tokens?: number;
  cache_write_tokens?: number;
}

/**
 * Usage of one model call, priced exactly (decisions.md §10). A model without
 * declared prices (every local one) costs "0"; an unreported count prices as 0.
 */
export function turnUsage(
  prices: Prices & { local?: boolean },
  reported: ReportedUsage,
): TurnUsage {
  const { input_tokens, output_tokens, cache_read_tokens, cache_write_tokens } = reported;
  const cache = { read: cache_read_tokens, write: cache_write_tokens };
  return {
    ...(input_tokens === undefined ? {} : { input_tokens }),
    ...(output_tokens === undefined ? {} : { output_tokens }),
    ...(cache_read_tokens ? { cache_read_tokens } : {}),
    ...(cache_write_tokens ? { cache_write_tokens } : {}),
    estimated_cost: usageCost(prices, input_tokens ?? 0, output_tokens ?? 0, cache) ?? "0",
    currency: CURRENCY,
  };
}

export function assistantMessage(
  content: string,
  model: { provider: string; model: string },
): TurnMessage {
  return { role: "assistant", content, provider: model.provider, model: model.model };
}

function envelope(
  status: TurnStatus,
  data: Record<string, unknown>,
  encrypted = false,
): TurnEnvelope {
  return { status, data, allowed_continuations: allowedContinuations(status, encrypted) };
}

/** In an encrypted session the completed turn waits for `sealed` (`to_encrypt` is not empty). */
export function completedEnvelope(data: CompletedData, encrypted: boolean): TurnEnvelope {
  return envelope("completed", {
    message: data.message,
    classification: classificationBody(data.classification),
    routing: data.routing,
    context: data.context,
    usage: data.usage,
    trace_id: data.trace_id,
    to_encrypt: data.to_encrypt,
  }, encrypted);
}

function withToEncrypt(data: Record<string, unknown>, toEncrypt?: Record<string, string>) {
  return toEncrypt === undefined ? data : { ...data, to_encrypt: toEncrypt };
}

export function awaitingToolEnvelope(
  toolRequests: readonly ToolRequest[],
  traceId: string,
  toEncrypt?: Record<string, string>,
): TurnEnvelope {
  const requests = toolRequests.map((r) => ({
    call_id: r.call_id,
    name: r.name,
    arguments: r.arguments,
    requires_approval: r.requires_approval,
  }));
  return envelope(
    "awaiting_tool",
    withToEncrypt({ tool_requests: requests, trace_id: traceId }, toEncrypt),
  );
}

export function awaitingApprovalEnvelope(
  approval: PendingApproval,
  traceId: string,
  toEncrypt?: Record<string, string>,
): TurnEnvelope {
  return envelope("awaiting_approval", withToEncrypt({ approval, trace_id: traceId }, toEncrypt));
}

export function awaitingDecryptEnvelope(
  toDecrypt: Record<string, Envelope>,
  traceId: string,
  toEncrypt?: Record<string, string>,
): TurnEnvelope {
  return envelope(
    "awaiting_decrypt",
    withToEncrypt({ to_decrypt: toDecrypt, trace_id: traceId }, toEncrypt),
  );
}

export function awaitingEncryptEnvelope(
  toEncrypt: Record<string, string>,
  traceId?: string,
): TurnEnvelope {
  const data: Record<string, unknown> = { to_encrypt: toEncrypt };
  if (traceId !== undefined) data.trace_id = traceId;
  return envelope("awaiting_encrypt", data);
}

/** The run is over and persisted; the payload is unspecified, so it carries only a trace id. */
export function idleEnvelope(traceId?: string): TurnEnvelope {
  return envelope("idle", traceId === undefined ? {} : { trace_id: traceId });
}

/** `{ error: { code, message } }` exactly (decisions.md §2); details stay out of turn data. */
export function errorEnvelope(failure: Failure): TurnEnvelope {
  return envelope("error", { error: { code: failure.code, message: failure.message } });
}
