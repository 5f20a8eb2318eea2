import type { WireProtocol } from "./registry.ts";

/**
 * The provider-neutral shape of one model call and of what comes back. Every
 * wire adapter (OpenAI Chat Completions, Anthropic Messages, Gemini, Ollama)
 * translates this request to its protocol and its answer to `ProviderEvent`s,
 * so the run engine handles one shape whatever the provider and whether the
 * call was streamed or buffered.
 */

export const EFFORTS = ["low", "medium", "high", "xhigh"] as const;
export type Effort = typeof EFFORTS[number];

/** A tool call the model made, as it is replayed in history. */
export interface ToolCall {
  /** The service's own id (decisions.md §1): what clients and tool results name. */
  readonly callId: string;
  /**
   * The provider instance that made the call and the id it gave it, when it
   * gave one: that provider gets its own id back (some servers validate its
   * form); any other provider gets `callId`.
   */
  readonly providerCall?: { readonly provider: string; readonly id: string };
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  /** Gemini's `thoughtSignature` for this call, echoed back on the next request. */
  readonly signature?: string;
}

/** A reasoning block kept for replay (Anthropic requires signed thinking before tool use). */
export interface ReasoningBlock {
  readonly text: string;
  readonly signature?: string;
}

/** An image in a user message: inline base64 data or a URL (OpenAI's image_url; Anthropic's url source). */
export interface ImagePart {
  readonly mediaType?: string;
  readonly data?: string;
  readonly url?: string;
}

/**
 * A prompt-cache breakpoint (Anthropic's `cache_control`): the prompt up to
 * and including what carries it may be cached. `ttl` as the client sent it.
 */
export interface CacheMark {
  readonly ttl?: string;
}

export interface UserMessage {
  readonly role: "user";
  readonly content: string;
  /** Sent after the text, in order; a URL image reaches only protocols that fetch URLs. */
  readonly images?: readonly ImagePart[];
  /** A client's cache breakpoint at the end of this message. */
  readonly cache?: CacheMark;
}

export interface AssistantMessage {
  readonly role: "assistant";
  readonly content: string;
  readonly toolCalls?: readonly ToolCall[];
  readonly reasoning?: readonly ReasoningBlock[];
  readonly cache?: CacheMark;
}

/** The result of one tool call; the tool's name is found from the call in history. */
export interface ToolResultMessage {
  readonly role: "tool";
  readonly callId: string;
  readonly content: string;
  readonly isError: boolean;
  /**
   * Images the result carries (a screenshot a tool read), after its text; each
   * protocol places them where its API takes them (a model without image
   * input gets a text note in their place, engine/image_notes.ts).
   */
  readonly images?: readonly ImagePart[];
  readonly cache?: CacheMark;
}

export type ChatMessage = UserMessage | AssistantMessage | ToolResultMessage;

export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments object. */
  readonly parameters: Record<string, unknown>;
  /** A client's cache breakpoint after this tool's definition. */
  readonly cache?: CacheMark;
}

/** Whether and which tool the model must call; a name forces that one tool. */
export type ToolChoice = "auto" | "none" | "required" | { readonly name: string };

export type ResponseFormat =
  | { readonly type: "text" }
  | { readonly type: "json_object" }
  | {
    readonly type: "json_schema";
    readonly name: string;
    readonly schema: Record<string, unknown>;
    readonly strict?: boolean;
  };

/**
 * The client's sampling controls, as the compatible surfaces receive them.
 * Each adapter maps what its protocol honours; `unsupportedOption`
 * (request_support.ts) names what it cannot, before any call.
 */
export interface SamplingOptions {
  readonly temperature?: number;
  readonly topP?: number;
  readonly stop?: readonly string[];
  readonly seed?: number;
  readonly responseFormat?: ResponseFormat;
}

export interface CompletionRequest {
  readonly model: string;
  /** System preamble; absent or empty sends none. */
  readonly system?: string;
  /** A client's cache breakpoint after the system prompt. */
  readonly systemCache?: CacheMark;
  readonly messages: readonly ChatMessage[];
  readonly tools?: readonly ToolSpec[];
  /** Sent only alongside `tools`: with no tool offered there is nothing to choose. */
  readonly toolChoice?: ToolChoice;
  readonly sampling?: SamplingOptions;
  /** Set only for models that support reasoning effort (decisions.md §5). */
  readonly effort?: Effort;
  readonly maxOutputTokens?: number;
  /**
   * The context window routing and trimming trusted. Ollama serves only the
   * `num_ctx` it is given (a small default otherwise) and silently cuts a
   * longer prompt, so its adapter sends it; the others size themselves.
   */
  readonly contextWindow?: number;
  readonly stream: boolean;
  /** Prompt caching (decisions.md §15); absent: the request is sent as it is. */
  readonly caching?: PromptCaching;
  /** Aborting stops the upstream call at once; the iteration then throws the abort reason. */
  readonly signal?: AbortSignal;
}

/**
 * What the service adds for a provider's prompt cache. `placeMarks`: a
 * request that carries no client mark gets Anthropic breakpoints placed (one
 * after tools and system prompt, one on the last message); `key`: OpenAI's
 * `prompt_cache_key`.
 */
export interface PromptCaching {
  readonly placeMarks: boolean;
  readonly key?: string;
}

/** Where and how to call: the provider id is used only in error messages. */
export interface ProviderTarget {
  readonly provider: string;
  /** Base URL as configured (decisions.md §11), without a trailing slash needed. */
  readonly baseUrl: string;
  readonly apiKey?: string;
  /** Covers the whole call, a stalled stream included. */
  readonly timeoutMs: number;
  /** The request is about to be sent (its body built). */
  readonly onSend?: () => void;
  /** The provider's response headers arrived. */
  readonly onHeaders?: () => void;
}

/**
 * Token counts as the provider reported them; a count the provider did not
 * report is absent, never zero. `inputTokens` counts every prompt token,
 * cached ones included; `cachedInputTokens` is the part read from a cache and
 * `cacheWriteTokens` the part written to one (Anthropic's cache creation).
 */
export interface TokenUsage {
  inputTokens?: number;
  outputTokens?: number;
  cachedInputTokens?: number;
  cacheWriteTokens?: number;
  reasoningTokens?: number;
}

/** Why generation stopped, normalised; `providerReason` keeps the provider's word. */
export type StopReason = "stop" | "tool_calls" | "max_tokens" | "refused" | "other";

export type ProviderEvent =
  | { readonly type: "text_delta"; readonly delta: string }
  | { readonly type: "reasoning_delta"; readonly delta: string }
  | { readonly type: "reasoning_signature"; readonly signature: string }
  | {
    readonly type: "tool_call_started";
    /** The provider's own id for the call; absent when it gives none (Gemini, Ollama mostly). */
    readonly callId?: string;
    readonly name: string;
    readonly index: number;
  }
  | {
    readonly type: "tool_call_complete";
    readonly callId?: string;
    readonly name: string;
    readonly index: number;
    readonly arguments: Record<string, unknown>;
    readonly signature?: string;
  }
  | { readonly type: "usage"; readonly usage: TokenUsage }
  | {
    readonly type: "end";
    readonly stopReason: StopReason;
    readonly providerReason?: string;
  };

/**
 * One wire protocol. `invoke` yields events in order and ends after exactly
 * one `end` event; any failure is thrown as a `ProviderError` (an abort throws
 * the signal's reason instead).
 */
export interface ProviderAdapter {
  readonly protocol: WireProtocol;
  invoke(target: ProviderTarget, request: CompletionRequest): AsyncIterable<ProviderEvent>;
}
