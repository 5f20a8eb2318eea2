/**
 * The digest that finds a conversation's session (decisions.md §12): SHA-256
 * of the conversation's canonical JSON (keys sorted, no whitespace), taken
 * over the neutral messages so the same conversation digests alike whichever
 * surface sent it, and whether its tool-call arguments came as a string or an
 * object.
 */
import { sha256Hex } from "../platform/secrets.ts";
import type { ChatMessage } from "../providers/types.ts";

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

function plain(m: ChatMessage): Record<string, unknown> {
  switch (m.role) {
    case "user":
      return { role: "user", content: m.content, images: m.images };
    case "tool":
      return { role: "tool", call_id: m.callId, content: m.content };
    case "assistant":
      return {
        role: "assistant",
        content: m.content,
        tool_calls: (m.toolCalls ?? []).map((c) => ({
          id: c.callId,
          name: c.name,
          arguments: c.arguments,
        })),
      };
  }
}

export function conversationDigest(
  system: string | null,
  messages: readonly ChatMessage[],
): string {
  return sha256Hex(canonical({ system, messages: messages.map(plain) }));
}

/**
 * The row that finds the session of a client's conversation key (decisions.md
 * §12): kept beside the conversations' digests, never equal to one.
 */
export function conversationKeyDigest(key: string): string {
  return `key:${sha256Hex(key)}`;
}
