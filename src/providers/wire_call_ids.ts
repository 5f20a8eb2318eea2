/**
 * Which id a tool call goes back to a provider under (issue 11, item 3). A
 * call that provider made goes back under the id it gave it, in the assistant
 * turn and in the tool result, as its API expects; a call another provider
 * made (a fallback mid-run), or one given no id, keeps the service's own.
 * An id the provider repeated for a second call keeps only its first, so
 * every call still has its own id on the wire.
 */
import type { ChatMessage } from "./types.ts";

/** Maps a service call id to the id `provider` is sent. */
export function wireCallIds(
  messages: readonly ChatMessage[],
  provider: string,
): (callId: string) => string {
  const wire = new Map<string, string>();
  const taken = new Set<string>();
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const call of message.toolCalls ?? []) {
      const own = call.providerCall;
      if (own !== undefined && own.provider === provider && !taken.has(own.id)) {
        wire.set(call.callId, own.id);
        taken.add(own.id);
      }
    }
  }
  return (callId) => wire.get(callId) ?? callId;
}
