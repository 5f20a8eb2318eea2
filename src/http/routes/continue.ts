/** POST /api/v1/sessions/{id}/continue: advance a run (interface.md "POST …/continue"). */
import { ServiceError } from "../../core/errors.ts";
import { continueRun } from "../../engine/continue_run.ts";
import { engineDeps } from "../../engine/engine_deps.ts";
import { NATIVE_SURFACE, wantsStream } from "../native_surface.ts";
import { readJsonObject } from "../body.ts";
import { parseContinueRequest } from "../continue_request.ts";
import type { Endpoint } from "../context.ts";
import { acceptTurns } from "../shutdown_gate.ts";
import { liveSession } from "./sessions.ts";

export const continueEndpoint: Endpoint = {
  auth: "bearer",
  async handle(ctx) {
    acceptTurns(ctx.deps);
    const session = await liveSession(ctx);
    const body = await readJsonObject(ctx.request, ctx.deps.config.limits.maxRequestBodyBytes);
    const continuation = parseContinueRequest(body);
    if (!continuation.ok) throw new ServiceError(continuation.failure);
    return await continueRun({
      deps: engineDeps(ctx.deps),
      session,
      headers: ctx.request.headers,
      stream: wantsStream(ctx.request.headers),
      surface: NATIVE_SURFACE,
      timing: ctx.timing,
    }, continuation.value);
  },
};
