/**
 * POST /api/v1/sessions/{id}/preview (interface.md "Preview"): the routing
 * decision of a turn without a model call. It takes no lock and writes
 * nothing, so it answers while a turn is in flight; the same body, policy,
 * credentials and catalogs give the same bytes.
 */
import { previewTurn } from "../../core/preview.ts";
import type { HistoryMessage } from "../../core/run_items.ts";
import { ServiceError } from "../../core/errors.ts";
import { loadHistory, loadMemory } from "../../engine/turn_records.ts";
import { parseCredentialHeaders } from "../../providers/credentials.ts";
import { listingTimeoutMs } from "../../providers/listing.ts";
import { catalogForRequest, catalogInput } from "../../providers/request_catalog.ts";
import type { SessionRow } from "../../store/sessions.ts";
import { readJsonObject } from "../body.ts";
import type { Deps, Endpoint } from "../context.ts";
import { jsonResponse } from "../error_response.ts";
import { parseTurnRequest } from "../turn_request.ts";
import { liveSession } from "./sessions.ts";

/**
 * History the preview may weigh: what execute would load for the turn it
 * describes. An encrypted session contributes none: its messages are
 * envelopes the service cannot open (decisions.md §8). A plaintext session's
 * stored messages come through the engine's own loader, so preview and
 * execute never disagree on what history is.
 */
async function previewHistory(deps: Deps, session: SessionRow): Promise<HistoryMessage[]> {
  if (session.key_id !== null) return [];
  // Preview starts no run, so no run id matches and every stored message counts.
  return await loadHistory({ deps, session, runId: "", seal: null });
}

export const previewEndpoint: Endpoint = {
  auth: "bearer",
  async handle(ctx) {
    const session = await liveSession(ctx);
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
      history: await previewHistory(ctx.deps, session),
      // What execute would place in the preamble; sealed session memory stays unopened.
      memory: await loadMemory({ deps: ctx.deps, session, seal: null }),
    });
    if (!preview.ok) throw new ServiceError(preview.failure);
    return jsonResponse(preview.value);
  },
};
