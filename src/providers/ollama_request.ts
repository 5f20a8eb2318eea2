/**
 * The Ollama chat request (`POST {base}/api/chat`, no auth): messages with
 * roles system/user/assistant/tool, tool calls with object arguments, tool
 * results named by `tool_name`, `think` for effort, `options.num_predict`.
 */
import { wireImages } from "./image_parts.ts";
import type { ChatMessage, CompletionRequest, Effort, SamplingOptions } from "./types.ts";

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
      const wire: Record<string, unknown> = { role: "user", content: message.content };
      // Base64 only: a URL image is refused before (request_support.ts).
      const images = wireImages(message.images).flatMap((image) =>
        image.kind === "inline" ? [image.image.data] : []
      );
      if (images.length > 0) wire.images = images;
      out.push(wire);
    } else if (message.role === "tool") {
      // Ollama has no error flag on tool results; the content says it.
      const result: Record<string, unknown> = { role: "tool", content: message.content };
      const name = names.get(message.callId);
      if (name !== undefined) result.tool_name = name;
      // Every Ollama message takes base64 `images`, a tool result's too.
      const images = wireImages(message.images).flatMap((image) =>
        image.kind === "inline" ? [image.image.data] : []
      );
      if (images.length > 0) result.images = images;
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

/** Sampling options go in `options`, under the names of Ollama's Modelfile parameters. */
function addSampling(options: Record<string, unknown>, sampling: SamplingOptions): void {
  if (sampling.temperature !== undefined) options.temperature = sampling.temperature;
  if (sampling.topP !== undefined) options.top_p = sampling.topP;
  if (sampling.stop && sampling.stop.length > 0) options.stop = sampling.stop;
  if (sampling.seed !== undefined) options.seed = sampling.seed;
}

/** `format` takes "json" or a JSON schema the answer must follow. */
function wireFormat(sampling: SamplingOptions | undefined): unknown {
  const format = sampling?.responseFormat;
  if (format === undefined || format.type === "text") return undefined;
  return format.type === "json_schema" ? format.schema : "json";
}

export function ollamaBody(request: CompletionRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: request.model,
    messages: wireMessages(request),
    stream: request.stream,
  };
  // Ollama cannot force a call; "none" is honoured by offering no tool at all.
  if (request.tools && request.tools.length > 0 && request.toolChoice !== "none") {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
  }
  if (request.effort) body.think = THINK_LEVEL[request.effort];
  const format = wireFormat(request.sampling);
  if (format !== undefined) body.format = format;
  const options: Record<string, unknown> = {};
  if (request.contextWindow !== undefined) options.num_ctx = request.contextWindow;
  if (request.maxOutputTokens !== undefined) options.num_predict = request.maxOutputTokens;
  if (request.sampling) addSampling(options, request.sampling);
  if (Object.keys(options).length > 0) body.options = options;
  return body;
}
