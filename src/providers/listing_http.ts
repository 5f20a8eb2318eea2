import { categoriseStatus, ProviderError, type ProviderErrorCategory } from "./errors.ts";

/** What every protocol listing needs: a fetch and the caller's deadline signal. */
export interface ListingContext {
  fetch: typeof fetch;
  signal: AbortSignal;
}

/** Turns a failed answer into a category; protocols with odd statuses pass their own. */
export type Classify = (status: number, body: unknown) => ProviderErrorCategory;

const MAX_PAGES = 100;

/** Bounds paging, so a provider repeating a cursor cannot keep a listing alive. */
export function checkPage(providerId: string, page: number, cursor: string, seen: Set<string>) {
  if (page >= MAX_PAGES || seen.has(cursor)) {
    throw new ProviderError("unknown", `${providerId}: model listing does not end`, providerId);
  }
  seen.add(cursor);
}

function transportError(providerId: string, signal: AbortSignal, what: string): ProviderError {
  return signal.aborted
    ? new ProviderError("timeout", `${providerId}: model listing timed out`, providerId)
    : new ProviderError("provider_unavailable", `${providerId}: ${what}`, providerId);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * GETs one listing page (or POSTs a listing query) and returns its JSON. Failures are `ProviderError`s
 * whose message names only the provider and the HTTP status: provider error
 * bodies can echo parts of the key, so none of their text is kept.
 */
export async function getJson(
  providerId: string,
  url: string,
  headers: Record<string, string>,
  ctx: ListingContext,
  classify: Classify = (status) => categoriseStatus(status),
  /** A JSON body to POST instead of a GET (Ollama's `/api/show`). */
  post?: Record<string, unknown>,
): Promise<unknown> {
  let response: Response;
  try {
    response = await ctx.fetch(
      url,
      post === undefined ? { method: "GET", headers, signal: ctx.signal } : {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify(post),
        signal: ctx.signal,
      },
    );
  } catch {
    throw transportError(providerId, ctx.signal, "cannot reach the provider");
  }
  let text: string;
  try {
    text = await response.text();
  } catch {
    throw transportError(providerId, ctx.signal, "the listing answer was cut off");
  }
  if (!response.ok) {
    const category = classify(response.status, parseJson(text));
    throw new ProviderError(
      category,
      `${providerId}: model listing failed with HTTP ${response.status}`,
      providerId,
      response.status,
    );
  }
  const body = parseJson(text);
  if (body === undefined || body === null || typeof body !== "object") {
    throw new ProviderError("unknown", `${providerId}: model listing is not JSON`, providerId);
  }
  return body;
}

/** Narrows an unknown JSON value to a record, for the protocol parsers. */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A malformed listing body: the provider answered 200 with a shape we cannot read. */
export function malformed(providerId: string): ProviderError {
  return new ProviderError(
    "unknown",
    `${providerId}: model listing has an unexpected shape`,
    providerId,
  );
}
