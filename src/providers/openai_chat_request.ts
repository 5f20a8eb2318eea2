/**
 * The OpenAI Chat Completions request body (`POST {base}/chat/completions`),
 * also spoken by every `openai-compat:<name>` instance.
 */
import type { ChatMessage, CompletionRequest, ToolSpec } from "./types.ts";
import { wireCallIds } from "./wire_call_ids.ts";

function wireMessage(message: ChatMessage, idOf: (callId: string) => string) {
  switch (message.role) {
    case "user":
      return { role: "user", content: message.content };
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

/** `provider` is the instance called: its own tool-call ids go back to it. */
export function openAiChatBody(
  request: CompletionRequest,
  provider: string,
): Record<string, unknown> {
  const messages: Record<string, unknown>[] = [];
  if (request.system) messages.push({ role: "system", content: request.system });
  const idOf = wireCallIds(request.messages, provider);
  for (const message of request.messages) messages.push(wireMessage(message, idOf));
  const body: Record<string, unknown> = { model: request.model, messages, stream: request.stream };
  if (request.stream) body.stream_options = { include_usage: true };
  if (request.tools && request.tools.length > 0) body.tools = request.tools.map(wireTool);
  // The service's effort names are OpenAI's own (`xhigh` included).
  if (request.effort) body.reasoning_effort = request.effort;
  if (request.maxOutputTokens !== undefined) {
    body.max_completion_tokens = request.maxOutputTokens;
  }
  return body;
}

export function openAiChatHeaders(apiKey?: string): Record<string, string> {
  // Keyless compatible instances (local servers) get no Authorization header at all.
  return apiKey ? { authorization: `Bearer ${apiKey}` } : {};
}
