/**
 * A native turn on a session (execute, continue). When the instance knows
 * the bearer token (`claimChecksToken`), the token is not read first: the
 * turn's claim checks it and the session together (engine/claim_auth.ts).
 * Whatever fails before the claim, and a claim that refuses, is answered as
 * if the request had been authenticated first: the token's failure, then
 * (past the drain gate) the session's, then its own; a refused claim whose
 * token and session hold after all (an encrypted session, a run in another
 * state) goes on as any turn does.
 */
import { isStorageError } from "../../core/errors.ts";
import { ClaimRefused, type TokenCheck } from "../../engine/claim_auth.ts";
import { engineDeps } from "../../engine/engine_deps.ts";
import type { TurnCall } from "../../engine/start_run.ts";
import type { TurnSession } from "../../engine/turn_context.ts";
import type { RequestContext } from "../context.ts";
import { NATIVE_SURFACE, wantsStream } from "../native_surface.ts";
import { acceptTurns } from "../shutdown_gate.ts";
import { liveSession, sessionIdParam } from "./sessions.ts";

/** Runs the turn on a session authenticated as usual, or (with `auth`) by its claim. */
export type Turn<B> = (
  ctx: RequestContext,
  session: TurnSession,
  body: B,
  auth?: TokenCheck,
) => Promise<Response>;

/** The engine's call for a native turn of this request. */
export function nativeCall(ctx: RequestContext, session: TurnSession, auth?: TokenCheck): TurnCall {
  return {
    deps: engineDeps(ctx.deps),
    session,
    headers: ctx.request.headers,
    stream: wantsStream(ctx.request.headers),
    surface: NATIVE_SURFACE,
    timing: ctx.timing,
    ...(auth === undefined ? {} : { auth }),
  };
}

/** An endpoint's turn, its token authenticated first or (when this instance knows it) by its claim. */
export async function sessionTurn<B>(
  ctx: RequestContext,
  readBody: (ctx: RequestContext) => Promise<B>,
  turn: Turn<B>,
): Promise<Response> {
  const check = ctx.principal.unchecked;
  if (check !== undefined) return await uncheckedTurn(ctx, check, readBody, turn);
  acceptTurns(ctx.deps);
  const session = await liveSession(ctx);
  return await turn(ctx, session, await readBody(ctx));
}

async function uncheckedTurn<B>(
  ctx: RequestContext,
  check: TokenCheck,
  readBody: (ctx: RequestContext) => Promise<B>,
  turn: Turn<B>,
): Promise<Response> {
  let gated = false;
  let read: { body: B } | undefined;
  try {
    acceptTurns(ctx.deps);
    gated = true;
    read = { body: await readBody(ctx) };
    const session = { id: sessionIdParam(ctx), user_id: check.token.userId, key_id: null };
    return await turn(ctx, session, read.body, check);
  } catch (error) {
    if (check.checked && !(error instanceof ClaimRefused)) throw error;
    // The store did not answer: authenticating would ask it again and wait a second deadline.
    if (isStorageError(error)) throw error;
    const principal = await ctx.confirm!();
    if (principal instanceof Response) return principal;
    const confirmed = { ...ctx, principal };
    if (!gated) throw error;
    const session = await liveSession(confirmed);
    if (!(error instanceof ClaimRefused) || read === undefined) throw error;
    return await turn(confirmed, session, read.body);
  }
}
