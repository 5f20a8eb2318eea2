/**
 * The OpenAI Chat Completions request body (`POST {base}/chat/completions`),
 * also spoken by every `openai-compat:<name>` instance.
 */
import { wireImages } from "./image_parts.ts";
import type {
  ChatMessage,
  CompletionRequest,
  ResponseFormat,
  SamplingOptions,
  ToolChoice,
  ToolSpec,
  UserMessage,
} from "./types.ts";
import { wireCallIds } from "./wire_call_ids.ts";

/** Plain text stays a string; images make content parts after the text. */
function userContent(message: UserMessage): unknown {
  const images = wireImages(message.images);
  if (images.length === 0) return message.content;
  const parts: Record<string, unknown>[] = [];
  if (message.content !== "") parts.push({ type: "text", text: message.content });
  for (const image of images) {
    const url = image.kind === "url"
      ? image.url
      : `data:${image.image.mediaType};base64,${image.image.data}`;
    parts.push({ type: "image_url", image_url: { url } });
  }
  return parts;
}

function wireMessage(message: ChatMessage, idOf: (callId: string) => string) {
  switch (message.role) {
    case "user":
      return { role: "user", content: userContent(message) };
    case "tool":
      // Chat Completions has no error flag on tool results; the content says it.
      return { role: "tool", tool_call_id: idOf(message.callId), content: message.content };
    case "assistant": {
      const calls = message.toolCalls ?? [];
      if (calls.length === 0) return { role: "assistant", content: message.content };
      return {
        role: "assistant",
        content: message.content === "" ? null : message.content,
        tool_calls: calls.map((call) => ({
          id: idOf(call.callId),
          type: "function",
          function: { name: call.name, arguments: JSON.stringify(call.arguments) },
        })),
      };
    }
  }
}

function wireTool(tool: ToolSpec): Record<string, unknown> {
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  };
}

function wireToolChoice(choice: ToolChoice): unknown {
  return typeof choice === "string"
    ? choice
    : { type: "function", function: { name: choice.name } };
}

function wireResponseFormat(format: ResponseFormat): Record<string, unknown> {
  if (format.type !== "json_schema") return { type: format.type };
  const schema: Record<string, unknown> = { name: format.name, schema: format.schema };
  if (format.strict !== undefined) schema.strict = format.strict;
  return { type: "json_schema", json_schema: schema };
}

/** The sampling fields, named as Chat Completions names them. */
function addSampling(body: Record<string, unknown>, sampling: SamplingOptions): void {
  if (sampling.temperature !== undefined) body.temperature = sampling.temperature;
  if (sampling.topP !== undefined) body.top_p = sampling.topP;
  if (sampling.stop && sampling.stop.length > 0) body.stop = sampling.stop;
  if (sampling.seed !== undefined) body.seed = sampling.seed;
  if (sampling.responseFormat) body.response_format = wireResponseFormat(sampling.responseFormat);
}

/**
 * Chat Completions takes images only in user messages: the images of a run of
 * tool results follow it in one user message (a user message between two tool
 * results would part them from their assistant message).
 */
function resultImages(results: readonly ChatMessage[]): Record<string, unknown> | null {
  const images = results.flatMap((m) => m.role === "tool" ? m.images ?? [] : []);
  if (images.length === 0) return null;
  return { role: "user", content: userContent({ role: "user", content: "", images }) };
}

/** `provider` is the instance called: its own tool-call ids go back to it. */
export function openAiChatBody(
  request: CompletionRequest,
  provider: string,
): Record<string, unknown> {
  const messages: Record<string, unknown>[] = [];
  if (request.system) messages.push({ role: "system", content: request.system });
  const idOf = wireCallIds(request.messages, provider);
  let results: ChatMessage[] = [];
  for (const message of request.messages) {
    if (message.role !== "tool" && results.length > 0) {
      const images = resultImages(results);
      if (images !== null) messages.push(images);
      results = [];
    }
    if (message.role === "tool") results.push(message);
    messages.push(wireMessage(message, idOf));
  }
  const trailing = resultImages(results);
  if (trailing !== null) messages.push(trailing);
  const body: Record<string, unknown> = { model: request.model, messages, stream: request.stream };
  if (request.stream) body.stream_options = { include_usage: true };
  if (request.tools && request.tools.length > 0) {
    body.tools = request.tools.map(wireTool);
    if (request.toolChoice !== undefined) body.tool_choice = wireToolChoice(request.toolChoice);
  }
  // The service's effort names are OpenAI's own (`xhigh` included).
  if (request.effort) body.reasoning_effort = request.effort;
  if (request.maxOutputTokens !== undefined) {
    body.max_completion_tokens = request.maxOutputTokens;
  }
  if (request.sampling) addSampling(body, request.sampling);
  // Requests that share a key go to the same cache (OpenAI's prompt caching).
  if (request.caching?.key !== undefined) body.prompt_cache_key = request.caching.key;
  return body;
}

export function openAiChatHeaders(apiKey?: string): Record<string, string> {
  // Keyless compatible instances (local servers) get no Authorization header at all.
  return apiKey ? { authorization: `Bearer ${apiKey}` } : {};
}
