/**
 * GET /api/v1/llm/providers and GET /api/v1/llm/models (interface.md). The
 * models listing is the same one routing uses, through the instance's cache.
 */
import { listingTimeoutMs, modelsResponseBody } from "../../providers/listing.ts";
import { parseCredentialHeaders } from "../../providers/credentials.ts";
import { providerDescriptors } from "../../providers/registry.ts";
import { catalogForRequest } from "../../providers/request_catalog.ts";
import type { Endpoint } from "../context.ts";
import { jsonResponse } from "../error_response.ts";

export const listProvidersEndpoint: Endpoint = {
  auth: "bearer",
  handle(ctx) {
    return Promise.resolve(jsonResponse({ providers: providerDescriptors(ctx.deps.registry) }));
  },
};

/**
 * Every provider in parallel, each under the deadline of `X-Router-Timeout-Ms`
 * (default 10000, clamped to 60000); the ones that cannot be listed go to
 * `unavailable`, which is absent when every provider was listed.
 */
export const listModelsEndpoint: Endpoint = {
  auth: "bearer",
  async handle(ctx) {
    const rc = await catalogForRequest(
      ctx.deps.registry,
      parseCredentialHeaders(ctx.request.headers),
      {
        cache: ctx.deps.listingCache,
        deadlineMs: listingTimeoutMs(ctx.request.headers.get("x-router-timeout-ms")),
      },
    );
    return jsonResponse(modelsResponseBody(rc.listing));
  },
};
