import type { Capabilities } from "../core/model.ts";
import type { LiveModel } from "./catalog.ts";
import { ProviderError } from "./errors.ts";
import { getJson, isRecord, type ListingContext, malformed } from "./listing_http.ts";
import type { ProviderEntry } from "./registry.ts";

/**
 * What `POST /api/show` says about one pulled model: its context length
 * (`model_info["<architecture>.context_length"]`, lowered to a `num_ctx` the
 * Modelfile sets, since that is what Ollama serves) and its capabilities
 * (`completion`, `tools`, `thinking`, `vision`). `null` for a model that
 * cannot chat (an embedding model).
 */
export function showDetails(id: string, body: unknown): LiveModel | null {
  const model: LiveModel = { id };
  if (!isRecord(body)) return model;
  const info = isRecord(body.model_info) ? body.model_info : {};
  const arch = info["general.architecture"];
  const trained = typeof arch === "string" ? info[`${arch}.context_length`] : undefined;
  const configured = typeof body.parameters === "string"
    ? /^num_ctx\s+(\d+)\s*$/m.exec(body.parameters)?.[1]
    : undefined;
  const windows = [trained, configured === undefined ? undefined : Number(configured)]
    .filter((n): n is number => typeof n === "number" && Number.isSafeInteger(n) && n > 0);
  if (windows.length > 0) model.max_context_tokens = Math.min(...windows);
  const listed: unknown = body.capabilities;
  if (Array.isArray(listed)) {
    const has = (name: string) => listed.includes(name);
    if (!has("completion")) return null;
    model.capabilities = {
      tools: has("tools"),
      reasoning: has("thinking"),
      images: has("vision"),
    } satisfies Capabilities;
  }
  return model;
}

/** POST `{base}/api/show`; a model it cannot describe keeps the defaults. */
async function show(provider: ProviderEntry, id: string, ctx: ListingContext): Promise<unknown> {
  try {
    return await getJson(provider.id, `${provider.base_url}/api/show`, {}, ctx, undefined, {
      model: id,
    });
  } catch (error) {
    if (ctx.signal.aborted || !(error instanceof ProviderError)) throw error;
    return undefined;
  }
}

/**
 * GET `{base}/api/tags`: the models pulled on the local Ollama, keyless; then
 * `/api/show` for each, one after another (a local server, and answers in a
 * stable order), for the window and capabilities the tags listing lacks.
 */
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
    if (typeof id !== "string" || id === "") continue;
    const described = showDetails(id, await show(provider, id, ctx));
    if (described !== null) models.push(described);
  }
  return models;
}
