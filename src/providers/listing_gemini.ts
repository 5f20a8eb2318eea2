import type { LiveModel } from "./catalog.ts";
import { categoriseStatus, type ProviderErrorCategory } from "./errors.ts";
import { checkPage, getJson, isRecord, type ListingContext, malformed } from "./listing_http.ts";
import type { ProviderEntry } from "./registry.ts";

const PAGE_SIZE = 1000;

/**
 * Gemini answers a wrong key with 400 INVALID_ARGUMENT and the reason
 * `API_KEY_INVALID` in its error details; that is a credentials problem, not
 * a malformed request.
 */
function classify(status: number, body: unknown): ProviderErrorCategory {
  if (status === 400 && isRecord(body) && isRecord(body.error)) {
    const details = Array.isArray(body.error.details) ? body.error.details : [];
    if (details.some((d) => isRecord(d) && d.reason === "API_KEY_INVALID")) {
      return "invalid_credentials";
    }
  }
  return categoriseStatus(status);
}

function liveModel(item: Record<string, unknown>, id: string): LiveModel {
  const model: LiveModel = { id };
  if (typeof item.displayName === "string" && item.displayName !== "") {
    model.display_name = item.displayName;
  }
  if (typeof item.inputTokenLimit === "number") model.max_context_tokens = item.inputTokenLimit;
  if (typeof item.outputTokenLimit === "number") model.max_output_tokens = item.outputTokenLimit;
  if (typeof item.thinking === "boolean") model.capabilities = { reasoning: item.thinking };
  return model;
}

/**
 * GET `{base}/v1beta/models`, following `nextPageToken` through `pageToken`;
 * keeps the models that can `generateContent`, without the `models/` prefix.
 * The key travels in `x-goog-api-key`, never in the query string.
 */
export async function listGeminiModels(
  provider: ProviderEntry,
  key: string | undefined,
  ctx: ListingContext,
): Promise<LiveModel[]> {
  const headers: Record<string, string> = {};
  if (key !== undefined) headers["x-goog-api-key"] = key;
  const models: LiveModel[] = [];
  const seen = new Set<string>();
  let token: string | undefined;
  for (let page = 0;; page++) {
    const query = new URLSearchParams({ pageSize: String(PAGE_SIZE) });
    if (token !== undefined) query.set("pageToken", token);
    const url = `${provider.base_url}/v1beta/models?${query}`;
    const body = await getJson(provider.id, url, headers, ctx, classify);
    if (!isRecord(body)) throw malformed(provider.id);
    const items = body.models ?? [];
    if (!Array.isArray(items)) throw malformed(provider.id);
    for (const item of items) {
      if (!isRecord(item) || typeof item.name !== "string") continue;
      const methods = Array.isArray(item.supportedGenerationMethods)
        ? item.supportedGenerationMethods
        : [];
      if (!methods.includes("generateContent")) continue;
      const id = item.name.startsWith("models/") ? item.name.slice("models/".length) : item.name;
      if (id !== "") models.push(liveModel(item, id));
    }
    if (typeof body.nextPageToken !== "string" || body.nextPageToken === "") return models;
    token = body.nextPageToken;
    checkPage(provider.id, page, token, seen);
  }
}
