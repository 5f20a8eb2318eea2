/** POST /api/v1/sessions/{id}/continue: advance a run (interface.md "POST …/continue"). */
import type { Continuation } from "../../core/continuation.ts";
import { ServiceError } from "../../core/errors.ts";
import { continueRun } from "../../engine/continue_run.ts";
import { readJsonObject } from "../body.ts";
import { parseContinueRequest } from "../continue_request.ts";
import type { Endpoint, RequestContext } from "../context.ts";
import { nativeCall, sessionTurn, type Turn } from "./session_turn.ts";

async function readContinuation(ctx: RequestContext): Promise<Continuation> {
  const body = await readJsonObject(ctx.request, ctx.deps.config.limits.maxRequestBodyBytes);
  const continuation = parseContinueRequest(body);
  if (!continuation.ok) throw new ServiceError(continuation.failure);
  return continuation.value;
}

const advance: Turn<Continuation> = (ctx, session, continuation, auth) =>
  continueRun(nativeCall(ctx, session, auth), continuation);

export const continueEndpoint: Endpoint = {
  auth: "bearer",
  claimChecksToken: true,
  handle: (ctx) => sessionTurn(ctx, readContinuation, advance),
};
