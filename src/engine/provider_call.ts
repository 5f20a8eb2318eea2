/**
 * One model invocation through the adapter of the provider's wire protocol.
 * The provider's call ids are replaced by the service's own (decisions.md §1),
 * which the run keeps in its conversation, so a later turn on another
 * provider replays consistent ids. Deltas are handed to `onEvent` as they
 * arrive; an abort (a supersede) ends the call with what had arrived so far.
 */
import { replyReserve } from "../core/candidate_walk.ts";
import type { ModelDescriptor } from "../core/model.ts";
import { adapterFor } from "../providers/adapter_for.ts";
import type { ProviderEntry } from "../providers/registry.ts";
import type { Policy } from "../core/turn_request_types.ts";
import type {
  CacheMark,
  ChatMessage,
  Effort,
  PromptCaching,
  ReasoningBlock,
  SamplingOptions,
  StopReason,
  TokenUsage,
  ToolCall,
  ToolChoice,
  ToolSpec,
} from "../providers/types.ts";
import type { PhaseClock } from "../telemetry/phase_clock.ts";

export interface ModelReply {
  text: string;
  reasoning: ReasoningBlock[];
  toolCalls: ToolCall[];
  usage: TokenUsage;
  stopReason: StopReason | null;
  /** Cut by a supersede: the reply is partial. */
  interrupted: boolean;
}

export type ReplyEvent =
  | { type: "text"; delta: string }
  | { type: "reasoning"; delta: string }
  | { type: "tool_started"; call_id: string; name: string }
  | { type: "tool_complete"; call: ToolCall; index: number };

export interface ModelCall {
  entry: ProviderEntry;
  model: ModelDescriptor;
  apiKey?: string;
  timeoutMs: number;
  system: string;
  /** A client's cache breakpoint after its system prompt (the Anthropic surface). */
  systemCache?: CacheMark;
  messages: ChatMessage[];
  tools: ToolSpec[];
  effort: Effort;
  /** A compatible surface's client options; absent for native turns. */
  toolChoice?: ToolChoice;
  sampling?: SamplingOptions;
  /** The client's own output limit; else the model's reply reserve. */
  maxOutputTokens?: number;
  stream: boolean;
  /** What the service adds for the provider's prompt cache (see `promptCaching`). */
  caching?: PromptCaching;
  signal: AbortSignal;
  newId: () => string;
  /** The request's phases: the provider's request, connect, first byte and rest. */
  timing: PhaseClock;
  onEvent: (event: ReplyEvent) => void;
}

/**
 * Prompt caching under the policy's `caching` (decisions.md §15): `"auto"`
 * (the default) places Anthropic breakpoints where the client placed none and
 * keys OpenAI's cache by the session; `"off"` adds nothing of the service's
 * own. A key the client sent is its own and always goes through.
 */
export function promptCaching(
  policy: Pick<Policy, "caching">,
  sessionId: string,
  clientKey?: string,
): PromptCaching {
  const auto = policy.caching !== "off";
  const key = clientKey ?? (auto ? sessionId : undefined);
  return { placeMarks: auto, ...(key === undefined ? {} : { key }) };
}

/** Throws the adapter's `ProviderError` on failure; returns the partial reply on abort. */
export async function callModel(c: ModelCall): Promise<ModelReply> {
  const reply: ModelReply = {
    text: "",
    reasoning: [],
    toolCalls: [],
    usage: {},
    stopReason: null,
    interrupted: false,
  };
  const ids = new Map<number, string>();
  const idOf = (index: number) => {
    let id = ids.get(index);
    if (id === undefined) ids.set(index, id = c.newId());
    return id;
  };
  let reasoning = "";
  let signature: string | undefined;
  const timing = c.timing;
  let first = true;
  try {
    const events = adapterFor(c.entry.protocol).invoke(
      {
        provider: c.entry.id,
        baseUrl: c.entry.base_url,
        apiKey: c.apiKey,
        timeoutMs: c.timeoutMs,
        onSend: () => timing.lap("request"),
        onHeaders: () => timing.lap("provider_connect"),
      },
      {
        model: c.model.model,
        system: c.system,
        ...(c.systemCache === undefined ? {} : { systemCache: c.systemCache }),
        messages: c.messages,
        ...(c.tools.length > 0 ? { tools: c.tools } : {}),
        ...(c.model.capabilities.reasoning === true ? { effort: c.effort } : {}),
        ...(c.toolChoice === undefined ? {} : { toolChoice: c.toolChoice }),
        ...(c.sampling === undefined ? {} : { sampling: c.sampling }),
        maxOutputTokens: c.maxOutputTokens ?? replyReserve(c.model),
        contextWindow: c.model.max_context_tokens,
        stream: c.stream,
        ...(c.caching === undefined ? {} : { caching: c.caching }),
        signal: c.signal,
      },
    );
    for await (const event of events) {
      if (first) {
        first = false;
        timing.lap("provider_first_byte");
      }
      switch (event.type) {
        case "text_delta":
          reply.text += event.delta;
          c.onEvent({ type: "text", delta: event.delta });
          break;
        case "reasoning_delta":
          reasoning += event.delta;
          c.onEvent({ type: "reasoning", delta: event.delta });
          break;
        case "reasoning_signature":
          signature = event.signature;
          break;
        case "tool_call_started":
          c.onEvent({ type: "tool_started", call_id: idOf(event.index), name: event.name });
          break;
        case "tool_call_complete": {
          const call: ToolCall = {
            callId: idOf(event.index),
            // Kept with the call (and sealed with it in an encrypted run) for the way back.
            ...(event.callId === undefined
              ? {}
              : { providerCall: { provider: c.entry.id, id: event.callId } }),
            name: event.name,
            arguments: event.arguments,
            ...(event.signature === undefined ? {} : { signature: event.signature }),
          };
          reply.toolCalls.push(call);
          c.onEvent({ type: "tool_complete", call, index: reply.toolCalls.length - 1 });
          break;
        }
        case "usage":
          reply.usage = { ...reply.usage, ...event.usage };
          break;
        case "end":
          reply.stopReason = event.stopReason;
          break;
      }
    }
  } catch (error) {
    if (!c.signal.aborted) throw error;
    reply.interrupted = true;
  } finally {
    timing.lap(first ? "provider_connect" : "provider_rest");
  }
  if (c.signal.aborted) reply.interrupted = true;
  if (reasoning !== "" || signature !== undefined) {
    reply.reasoning.push({ text: reasoning, ...(signature === undefined ? {} : { signature }) });
  }
  return reply;
}
