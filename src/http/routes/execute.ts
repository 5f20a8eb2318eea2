/** POST /api/v1/sessions/{id}/execute: start a run (interface.md "POST …/execute"). */
import { type } from "../ark.ts";
import { ServiceError } from "../../core/errors.ts";
import type { Envelope as SealedEnvelope } from "../../core/sealed_envelope.ts";
import { startRun } from "../../engine/start_run.ts";
import type { TurnRequest } from "../../core/turn_request_types.ts";
import { readJsonObject } from "../body.ts";
import type { Endpoint, RequestContext } from "../context.ts";
import { Envelope } from "../continue_request.ts";
import { compiled } from "../ark.ts";
import { parseTurnRequest } from "../turn_request.ts";
import { nativeCall, sessionTurn, type Turn } from "./session_turn.ts";

/**
 * `input.ciphertext`, the sealed prompt of an encrypted session (decisions.md
 * §8), as the body carried it: validating the turn request deletes it from the
 * body with the other unknown fields, so it is taken first and checked after
 * the request (a bad request is reported before a bad envelope). Its key is
 * checked against the session by the engine.
 */
function takeSealedPrompt(body: Record<string, unknown>): unknown {
  const input = body.input as Record<string, unknown> | undefined;
  return typeof input === "object" && input !== null ? input.ciphertext : undefined;
}

const SealedPromptSchema = compiled(Envelope);

function sealedPrompt(raw: unknown): SealedEnvelope | undefined {
  if (raw === undefined || raw === null) return undefined;
  const out = SealedPromptSchema(raw);
  if (out instanceof type.errors) {
    throw ServiceError.of("invalid_request", `invalid input.ciphertext: ${out.summary}`, {
      path: "input.ciphertext",
    });
  }
  return out as SealedEnvelope;
}

/** What execute's body asks: the validated turn request and the sealed prompt, if any. */
interface ExecuteBody {
  request: TurnRequest;
  ciphertext: SealedEnvelope | undefined;
}

async function readExecuteBody(ctx: RequestContext): Promise<ExecuteBody> {
  const body = await readJsonObject(ctx.request, ctx.deps.config.limits.maxRequestBodyBytes);
  const sealed = takeSealedPrompt(body);
  const request = parseTurnRequest(body);
  if (!request.ok) throw new ServiceError(request.failure);
  return { request: request.value, ciphertext: sealedPrompt(sealed) };
}

const execute: Turn<ExecuteBody> = (ctx, session, body, auth) =>
  startRun(nativeCall(ctx, session, auth), body.request, body.ciphertext);

export const executeEndpoint: Endpoint = {
  auth: "bearer",
  claimChecksToken: true,
  handle: (ctx) => sessionTurn(ctx, readExecuteBody, execute),
};
