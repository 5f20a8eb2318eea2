import type { LiveModel } from "./catalog.ts";
import { getJson, isRecord, type ListingContext, malformed } from "./listing_http.ts";
import type { ProviderEntry } from "./registry.ts";

/**
 * OpenAI's `/models` lists every model of the account, embeddings, speech and
 * image models included, and some models answer only on the Responses API
 * (`-pro`, `codex`, `computer-use`, `deep-research`); only Chat Completions
 * models can serve a turn. Compatible servers list what they serve, so their
 * listing is kept whole; vLLM's `max_model_len` and OpenRouter's
 * `context_length` give the window where present.
 */
const NOT_CHAT = new RegExp(
  "(^|[-:])(embedding|tts|whisper|dall-e|moderation|transcribe|realtime|audio|image|davinci|" +
    "babbage|sora|pro|codex|computer-use|deep-research)([-:.]|$)",
);

/** GET `{base}/models` with a Bearer key (Chat Completions protocol). */
export async function listOpenAiModels(
  provider: ProviderEntry,
  key: string | undefined,
  ctx: ListingContext,
): Promise<LiveModel[]> {
  const headers: Record<string, string> = {};
  if (key !== undefined) headers.authorization = `Bearer ${key}`;
  const body = await getJson(provider.id, `${provider.base_url}/models`, headers, ctx);
  if (!isRecord(body) || !Array.isArray(body.data)) throw malformed(provider.id);
  const models: LiveModel[] = [];
  for (const item of body.data) {
    if (!isRecord(item) || typeof item.id !== "string" || item.id === "") continue;
    if (provider.id === "openai" && NOT_CHAT.test(item.id)) continue;
    const window = typeof item.max_model_len === "number"
      ? item.max_model_len
      : typeof item.context_length === "number"
      ? item.context_length
      : undefined;
    models.push(
      window === undefined ? { id: item.id } : { id: item.id, max_context_tokens: window },
    );
  }
  return models;
}
