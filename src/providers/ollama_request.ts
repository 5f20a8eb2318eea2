/**
 * The Ollama chat request (`POST {base}/api/chat`, no auth): messages with
 * roles system/user/assistant/tool, tool calls with object arguments, tool
 * results named by `tool_name`, `think` for effort, `options.num_predict`.
 */
import type { ChatMessage, CompletionRequest, Effort } from "./types.ts";

/** Ollama's think levels stop at "high". */
const THINK_LEVEL: Record<Effort, string> = {
  low: "low",
  medium: "medium",
  high: "high",
  xhigh: "high",
};

function wireMessages(request: CompletionRequest): Record<string, unknown>[] {
  const names = new Map<string, string>();
  const out: Record<string, unknown>[] = [];
  if (request.system) out.push({ role: "system", content: request.system });
  for (const message of request.messages as readonly ChatMessage[]) {
    if (message.role === "user") {
      out.push({ role: "user", content: message.content });
    } else if (message.role === "tool") {
      // Ollama has no error flag on tool results; the content says it.
      const result: Record<string, unknown> = { role: "tool", content: message.content };
      const name = names.get(message.callId);
      if (name !== undefined) result.tool_name = name;
      out.push(result);
    } else {
      const wire: Record<string, unknown> = { role: "assistant", content: message.content };
      const calls = message.toolCalls ?? [];
      for (const call of calls) names.set(call.callId, call.name);
      if (calls.length > 0) {
        wire.tool_calls = calls.map((call) => ({
          function: { name: call.name, arguments: call.arguments },
        }));
      }
      out.push(wire);
    }
  }
  return out;
}

export function ollamaBody(request: CompletionRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: request.model,
    messages: wireMessages(request),
    stream: request.stream,
  };
  if (request.tools && request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
  }
  if (request.effort) body.think = THINK_LEVEL[request.effort];
  const options: Record<string, number> = {};
  if (request.contextWindow !== undefined) options.num_ctx = request.contextWindow;
  if (request.maxOutputTokens !== undefined) options.num_predict = request.maxOutputTokens;
  if (Object.keys(options).length > 0) body.options = options;
  return body;
}
