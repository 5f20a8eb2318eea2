import type { Capabilities } from "../core/model.ts";
import type { LiveModel } from "./catalog.ts";
import { checkPage, getJson, isRecord, type ListingContext, malformed } from "./listing_http.ts";
import type { ProviderEntry } from "./registry.ts";

/** The Messages API version the listing is written against. */
export const ANTHROPIC_VERSION = "2023-06-01";
const PAGE_SIZE = 1000;

const supported = (capabilities: Record<string, unknown>, name: string): boolean | undefined => {
  const entry = capabilities[name];
  return isRecord(entry) && typeof entry.supported === "boolean" ? entry.supported : undefined;
};

/** Reads the optional `capabilities`, `max_input_tokens` and `max_tokens` of a model object. */
function liveModel(item: Record<string, unknown>): LiveModel {
  const model: LiveModel = { id: item.id as string };
  if (typeof item.display_name === "string" && item.display_name !== "") {
    model.display_name = item.display_name;
  }
  if (typeof item.max_input_tokens === "number") model.max_context_tokens = item.max_input_tokens;
  if (typeof item.max_tokens === "number") model.max_output_tokens = item.max_tokens;
  if (isRecord(item.capabilities)) {
    const caps: Capabilities = {};
    const images = supported(item.capabilities, "image_input");
    const json = supported(item.capabilities, "structured_outputs");
    const thinking = supported(item.capabilities, "thinking");
    if (images !== undefined) caps.images = images;
    if (json !== undefined) caps.json_output = json;
    if (thinking !== undefined) caps.reasoning = thinking;
    model.capabilities = caps;
  }
  return model;
}

/** GET `{base}/v1/models`, following `has_more` / `last_id` through `after_id`. */
export async function listAnthropicModels(
  provider: ProviderEntry,
  key: string | undefined,
  ctx: ListingContext,
): Promise<LiveModel[]> {
  const headers: Record<string, string> = { "anthropic-version": ANTHROPIC_VERSION };
  if (key !== undefined) headers["x-api-key"] = key;
  const models: LiveModel[] = [];
  const seen = new Set<string>();
  let after: string | undefined;
  for (let page = 0;; page++) {
    const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (after !== undefined) query.set("after_id", after);
    const url = `${provider.base_url}/v1/models?${query}`;
    const body = await getJson(provider.id, url, headers, ctx);
    if (!isRecord(body) || !Array.isArray(body.data)) throw malformed(provider.id);
    for (const item of body.data) {
      if (isRecord(item) && typeof item.id === "string" && item.id !== "") {
        models.push(liveModel(item));
      }
    }
    if (body.has_more !== true) return models;
    if (typeof body.last_id !== "string" || body.last_id === "") throw malformed(provider.id);
    after = body.last_id;
    checkPage(provider.id, page, after, seen);
  }
}
