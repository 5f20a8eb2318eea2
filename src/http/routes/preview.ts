/**
 * POST /api/v1/sessions/{id}/preview (interface.md "Preview"): the routing
 * decision of a turn without a model call. It takes no lock and writes
 * nothing, so it answers while a turn is in flight; the same body, policy,
 * credentials and catalogs give the same bytes.
 */
import { previewTurn } from "../../core/preview.ts";
import { ServiceError } from "../../core/errors.ts";
import { historyFrom, memoryFrom } from "../../engine/turn_records.ts";
import { parseCredentialHeaders } from "../../providers/credentials.ts";
import { listingTimeoutMs } from "../../providers/listing.ts";
import { catalogForRequest, catalogInput } from "../../providers/request_catalog.ts";
import { readTurn } from "../../store/run_admission.ts";
import { readJsonObject } from "../body.ts";
import type { Endpoint } from "../context.ts";
import { jsonResponse } from "../error_response.ts";
import { parseTurnRequest } from "../turn_request.ts";
import { liveSession } from "./sessions.ts";

/** Preview starts no run and has no seal: every stored message counts, sealed ones stay shut. */
const NO_RUN = { runId: "", seal: null };

export const previewEndpoint: Endpoint = {
  auth: "bearer",
  readsTurn: true,
  async handle(ctx) {
    const session = await liveSession(ctx);
    // Read with the token, as execute's claim reads it (migration 005).
    const reading = ctx.principal.reading ??
      await readTurn(ctx.deps.db, session, ctx.deps.historyCache);
    const body = await readJsonObject(ctx.request, ctx.deps.config.limits.maxRequestBodyBytes);
    const request = parseTurnRequest(body);
    if (!request.ok) throw new ServiceError(request.failure);
    const rc = await catalogForRequest(
      ctx.deps.registry,
      parseCredentialHeaders(ctx.request.headers),
      {
        cache: ctx.deps.listingCache,
        deadlineMs: listingTimeoutMs(ctx.request.headers.get("x-router-timeout-ms")),
      },
    );
    const preview = previewTurn({
      request: request.value,
      ...catalogInput(rc),
      // An encrypted session's messages are envelopes the service cannot open (decisions.md §8).
      history: session.key_id === null ? historyFrom(NO_RUN, reading.history) : [],
      // What execute would place in the preamble; sealed session memory stays unopened.
      memory: memoryFrom(NO_RUN, reading.memory),
    });
    if (!preview.ok) throw new ServiceError(preview.failure);
    return jsonResponse(preview.value);
  },
};
