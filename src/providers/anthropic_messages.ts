/**
 * Anthropic Messages adapter: the SSE event sequence message_start →
 * content_block_start/delta/stop … → message_delta → message_stop (or one
 * buffered message) to `ProviderEvent`s; `message_stop` is the only clean end.
 */
import { ProviderError } from "./errors.ts";
import { ProviderCall } from "./http_call.ts";
import { refuseUnsupported } from "./request_support.ts";
import { anthropicHeaders, anthropicMessagesBody } from "./anthropic_messages_request.ts";
import { anthropicErrorDetail, MessageAssembly } from "./anthropic_message_assembly.ts";
import type { CompletionRequest, ProviderAdapter, ProviderEvent, ProviderTarget } from "./types.ts";
import { isRecord, parseChunk } from "./wire_json.ts";

async function* streamEvents(call: ProviderCall, response: Response, apiKey?: string) {
  const assembly = new MessageAssembly(call.provider);
  for await (const event of call.sse(response)) {
    const data = parseChunk(call.provider, event.data, `"${event.event}" event`);
    if (!isRecord(data)) throw new ProviderError("unknown", "malformed event", call.provider);
    if (yield* assembly.handle(data, apiKey)) return;
  }
  throw new ProviderError(
    "provider_unavailable",
    `${call.provider} stream ended before message_stop: connection closed mid-answer`,
    call.provider,
  );
}

async function* invoke(
  target: ProviderTarget,
  request: CompletionRequest,
): AsyncGenerator<ProviderEvent> {
  refuseUnsupported("anthropic", request, target.provider);
  const call = new ProviderCall(target, request.signal);
  try {
    const headers = anthropicHeaders(target.apiKey);
    const body = anthropicMessagesBody(request, target.provider);
    const response = await call.post("/v1/messages", headers, body, anthropicErrorDetail);
    if (request.stream) {
      yield* streamEvents(call, response, target.apiKey);
      return;
    }
    const message = parseChunk(target.provider, await call.readText(response), "response body");
    if (!isRecord(message)) throw new ProviderError("unknown", "malformed body", target.provider);
    yield* new MessageAssembly(target.provider).replay(message);
  } finally {
    call.close();
  }
}

export const anthropicMessagesAdapter: ProviderAdapter = { protocol: "anthropic", invoke };
