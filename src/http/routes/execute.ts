/** POST /api/v1/sessions/{id}/execute: start a run (interface.md "POST …/execute"). */
import { ServiceError } from "../../core/errors.ts";
import { engineDeps } from "../../engine/engine_deps.ts";
import { startRun, wantsStream } from "../../engine/start_run.ts";
import { readJsonObject } from "../body.ts";
import type { Endpoint } from "../context.ts";
import { parseTurnRequest } from "../turn_request.ts";
import { liveSession } from "./sessions.ts";

export const executeEndpoint: Endpoint = {
  auth: "bearer",
  async handle(ctx) {
    const session = await liveSession(ctx);
    const body = await readJsonObject(ctx.request, ctx.deps.config.limits.maxRequestBodyBytes);
    const request = parseTurnRequest(body);
    if (!request.ok) throw new ServiceError(request.failure);
    return await startRun({
      deps: engineDeps(ctx.deps),
      session,
      headers: ctx.request.headers,
      stream: wantsStream(ctx.request.headers),
    }, request.value);
  },
};
