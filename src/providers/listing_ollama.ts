import type { LiveModel } from "./catalog.ts";
import { getJson, isRecord, type ListingContext, malformed } from "./listing_http.ts";
import type { ProviderEntry } from "./registry.ts";

/** GET `{base}/api/tags`: the models pulled on the local Ollama, keyless. */
export async function listOllamaModels(
  provider: ProviderEntry,
  _key: string | undefined,
  ctx: ListingContext,
): Promise<LiveModel[]> {
  const body = await getJson(provider.id, `${provider.base_url}/api/tags`, {}, ctx);
  if (!isRecord(body)) throw malformed(provider.id);
  const items = body.models ?? [];
  if (!Array.isArray(items)) throw malformed(provider.id);
  const models: LiveModel[] = [];
  for (const item of items) {
    if (!isRecord(item)) continue;
    const id = typeof item.name === "string" && item.name !== "" ? item.name : item.model;
    if (typeof id === "string" && id !== "") models.push({ id });
  }
  return models;
}
