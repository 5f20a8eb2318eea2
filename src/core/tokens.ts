/**
 * The token estimate (decisions.md §6, §15): one estimator of everything a
 * provider is sent, used for context windows, preview prices, `cost_limit`,
 * `count_tokens` / `input_tokens`, the input a stream reports first and
 * budget reservations. Deterministic (routing depends on it): text is
 * ceil(Unicode code points / 4), counting code points, not UTF-16 units, so
 * it is identical under every runtime and for every script; what frames the
 * text (a message, a tool definition) and each image count fixed figures.
 */
import { codePointLength } from "./words.ts";

/** Tokens of one message's framing (role and turn markers), whatever its content. */
export const MESSAGE_TOKENS = 4;
/**
 * Tokens of one image, whatever its size: the most a provider charges for an
 * image it does not downscale further (Anthropic: about 1,600 for 1.15
 * megapixels; OpenAI's high detail at 1024×1024: 765), so a budget is never
 * under-reserved for one.
 */
export const IMAGE_TOKENS = 1_600;
/** Tokens of one tool definition's framing, beside its name, description and schema. */
export const TOOL_TOKENS = 8;
/**
 * Tokens a provider adds to its own system prompt when a request offers
 * tools (Anthropic's tool-use prompt is 313–346 tokens; OpenAI's is of the
 * same order), counted once per request with tools.
 */
export const TOOL_USE_TOKENS = 340;

export function estimateTokens(content: string): number {
  return Math.ceil(codePointLength(content) / 4);
}

/** A tool as a provider is sent it: name, description, JSON Schema of its arguments. */
export interface SentTool {
  readonly name: string;
  readonly description: string;
  readonly parameters: Record<string, unknown>;
}

/**
 * One message as it is sent, in the providers' neutral shape: a user message
 * (text and images), an assistant message (text and tool calls), or a tool
 * result.
 */
export interface SentMessage {
  readonly role: "user" | "assistant" | "tool";
  readonly content: string;
  readonly images?: readonly unknown[];
  readonly toolCalls?: readonly { readonly name: string; readonly arguments: unknown }[];
}

export interface SentRequest {
  readonly system: string;
  readonly tools: readonly SentTool[];
  readonly messages: readonly SentMessage[];
}

export function estimateToolTokens(tools: readonly SentTool[]): number {
  if (tools.length === 0) return 0;
  return tools.reduce(
    (sum, t) =>
      sum + TOOL_TOKENS + estimateTokens(t.name) + estimateTokens(t.description) +
      estimateTokens(JSON.stringify(t.parameters)),
    TOOL_USE_TOKENS,
  );
}

export function estimateMessageTokens(m: SentMessage): number {
  let tokens = MESSAGE_TOKENS + estimateTokens(m.content);
  tokens += (m.images?.length ?? 0) * IMAGE_TOKENS;
  for (const call of m.toolCalls ?? []) {
    tokens += estimateTokens(call.name) + estimateTokens(JSON.stringify(call.arguments));
  }
  return tokens;
}

/** Everything a provider is sent for one call: system prompt, tool definitions, every message. */
export function estimateRequestTokens(r: SentRequest): number {
  return r.messages.reduce(
    (sum, m) => sum + estimateMessageTokens(m),
    estimateTokens(r.system) + estimateToolTokens(r.tools),
  );
}
