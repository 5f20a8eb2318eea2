/**
 * The Anthropic Messages request body (`POST {base}/v1/messages`). The system
 * preamble is the top-level `system`; tool results travel as `tool_result`
 * blocks in a user message; effort becomes an extended-thinking budget.
 */
import { type CacheBreakpoints, cacheBreakpoints, cacheControl } from "./cache_marks.ts";
import { wireImages } from "./image_parts.ts";
import type {
  AssistantMessage,
  CacheMark,
  ChatMessage,
  CompletionRequest,
  Effort,
  ToolChoice,
  UserMessage,
} from "./types.ts";
import { wireCallIds } from "./wire_call_ids.ts";

type IdOf = (callId: string) => string;

export const ANTHROPIC_VERSION = "2023-06-01";

/** `max_tokens` is required by the API; 4096 is the reply reserve of decisions.md §5. */
const DEFAULT_MAX_TOKENS = 4096;
/** The API's smallest thinking budget. */
const MIN_THINKING_BUDGET = 1024;
const THINKING_BUDGET: Record<Effort, number> = {
  low: 1024,
  medium: 4096,
  high: 16384,
  xhigh: 32768,
};

function assistantContent(message: AssistantMessage, idOf: IdOf): unknown {
  const calls = message.toolCalls ?? [];
  const reasoning = (message.reasoning ?? []).filter((block) => block.signature !== undefined);
  if (calls.length === 0 && reasoning.length === 0) return message.content;
  const blocks: Record<string, unknown>[] = [];
  // Signed thinking must precede tool use when the turn continues after tools.
  for (const block of reasoning) {
    blocks.push({ type: "thinking", thinking: block.text, signature: block.signature });
  }
  if (message.content !== "") blocks.push({ type: "text", text: message.content });
  for (const call of calls) {
    blocks.push({
      type: "tool_use",
      id: idOf(call.callId),
      name: call.name,
      input: call.arguments,
    });
  }
  return blocks;
}

/** Plain text stays a string; images make blocks, after the text as the client wrote them. */
function userContent(message: UserMessage): unknown {
  const images = wireImages(message.images);
  if (images.length === 0) return message.content;
  const blocks: Record<string, unknown>[] = [];
  // The API refuses empty text blocks.
  if (message.content !== "") blocks.push({ type: "text", text: message.content });
  for (const image of images) {
    const source = image.kind === "url"
      ? { type: "url", url: image.url }
      : { type: "base64", media_type: image.image.mediaType, data: image.image.data };
    blocks.push({ type: "image", source });
  }
  return blocks;
}

function wireToolChoice(choice: ToolChoice): Record<string, unknown> {
  if (typeof choice !== "string") return { type: "tool", name: choice.name };
  return { type: choice === "required" ? "any" : choice };
}

/**
 * Content with a cache breakpoint on its last block: a string becomes one
 * text block. Nothing to mark (an empty text) stays as it is: the API
 * refuses empty text blocks.
 */
function marked(content: unknown, mark: CacheMark | undefined): unknown {
  if (mark === undefined) return content;
  if (typeof content === "string") {
    return content === ""
      ? content
      : [{ type: "text", text: content, cache_control: cacheControl(mark) }];
  }
  const blocks = content as Record<string, unknown>[];
  // Thinking blocks cannot carry a breakpoint; the last block of a message is never one.
  const last = blocks.at(-1);
  if (last === undefined || last.type === "thinking") return content;
  return [...blocks.slice(0, -1), { ...last, cache_control: cacheControl(mark) }];
}

function wireMessages(
  messages: readonly ChatMessage[],
  idOf: IdOf,
  marks: CacheBreakpoints["messages"],
): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let results: Record<string, unknown>[] | undefined;
  for (const [i, message] of messages.entries()) {
    const mark = marks.get(i);
    if (message.role === "tool") {
      const block: Record<string, unknown> = {
        type: "tool_result",
        tool_use_id: idOf(message.callId),
        // Images go in the result's own content, as the API takes them there.
        content: (message.images?.length ?? 0) === 0
          ? message.content
          : userContent({ role: "user", content: message.content, images: message.images }),
      };
      if (message.isError) block.is_error = true;
      if (mark !== undefined) block.cache_control = cacheControl(mark);
      // Consecutive results answer one assistant turn: one user message holds them all.
      if (results === undefined) {
        results = [];
        out.push({ role: "user", content: results });
      }
      results.push(block);
      continue;
    }
    results = undefined;
    if (message.role === "user") {
      out.push({ role: "user", content: marked(userContent(message), mark) });
    } else out.push({ role: "assistant", content: marked(assistantContent(message, idOf), mark) });
  }
  return out;
}

/**
 * The extended-thinking budget the request gets, if any: it must stay below
 * max_tokens, and too small a window means no thinking.
 */
export function anthropicThinkingBudget(request: CompletionRequest): number | undefined {
  if (!request.effort) return undefined;
  const maxTokens = request.maxOutputTokens ?? DEFAULT_MAX_TOKENS;
  const budget = Math.min(THINKING_BUDGET[request.effort], maxTokens - 1);
  return budget >= MIN_THINKING_BUDGET ? budget : undefined;
}

/** `provider` is the instance called: its own `tool_use` ids go back to it. */
export function anthropicMessagesBody(
  request: CompletionRequest,
  provider: string,
): Record<string, unknown> {
  const maxTokens = request.maxOutputTokens ?? DEFAULT_MAX_TOKENS;
  const body: Record<string, unknown> = { model: request.model, max_tokens: maxTokens };
  const marks = cacheBreakpoints(request);
  if (request.system) {
    body.system = marks.system === undefined
      ? request.system
      : [{ type: "text", text: request.system, cache_control: cacheControl(marks.system) }];
  }
  body.messages = wireMessages(
    request.messages,
    wireCallIds(request.messages, provider),
    marks.messages,
  );
  if (request.tools && request.tools.length > 0) {
    body.tools = request.tools.map((tool, i) => {
      const mark = marks.tools.get(i);
      return {
        name: tool.name,
        description: tool.description,
        input_schema: tool.parameters,
        ...(mark === undefined ? {} : { cache_control: cacheControl(mark) }),
      };
    });
    if (request.toolChoice !== undefined) body.tool_choice = wireToolChoice(request.toolChoice);
  }
  const budget = anthropicThinkingBudget(request);
  if (budget !== undefined) body.thinking = { type: "enabled", budget_tokens: budget };
  // Seed and response format have no equivalent here (request_support.ts refuses them).
  const sampling = request.sampling ?? {};
  if (sampling.temperature !== undefined) body.temperature = sampling.temperature;
  if (sampling.topP !== undefined) body.top_p = sampling.topP;
  if (sampling.stop && sampling.stop.length > 0) body.stop_sequences = sampling.stop;
  body.stream = request.stream;
  return body;
}

export function anthropicHeaders(apiKey?: string): Record<string, string> {
  const headers: Record<string, string> = { "anthropic-version": ANTHROPIC_VERSION };
  if (apiKey) headers["x-api-key"] = apiKey;
  return headers;
}
