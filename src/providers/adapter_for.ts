/**
 * Which wire adapter speaks a protocol. The registry (`registry.ts`) says
 * which protocol each provider speaks; every `openai-compat:<name>` instance
 * speaks Chat Completions (decisions.md §11).
 */
import { anthropicMessagesAdapter } from "./anthropic_messages.ts";
import { geminiAdapter } from "./gemini.ts";
import { ollamaAdapter } from "./ollama.ts";
import { openAiChatAdapter } from "./openai_chat.ts";
import type { WireProtocol } from "./registry.ts";
import type { ProviderAdapter } from "./types.ts";

const ADAPTERS: Record<WireProtocol, ProviderAdapter> = {
  openai: openAiChatAdapter,
  anthropic: anthropicMessagesAdapter,
  gemini: geminiAdapter,
  ollama: ollamaAdapter,
};

export function adapterFor(protocol: WireProtocol): ProviderAdapter {
  return ADAPTERS[protocol];
}
