/**
 * `execute` (interface.md "POST …/execute", decisions.md §7): claims the
 * session's run atomically (409 `run_in_flight` while a turn runs; a run
 * waiting for the client is superseded and its pending tool calls
 * cancelled), persists the user message, and runs the turn loop.
 */
import { ServiceError } from "../core/errors.ts";
import type { Pause } from "../core/run_state.ts";
import { type Envelope, envelopeProblem } from "../core/sealed_envelope.ts";
import { toolCallTracePayload } from "../core/tool_mediation.ts";
import type { TurnRequest } from "../core/turn_request_types.ts";
import { parseCredentialHeaders } from "../providers/credentials.ts";
import { catalogForRequest } from "../providers/request_catalog.ts";
import type { RunRow } from "../store/runs.ts";
import { checkedBy, claimAuth, type TokenCheck } from "./claim_auth.ts";
import { respondWithTurn, type TurnSurface } from "./respond.ts";
import { entered } from "./entry_queue.ts";
import { newRunInput, type RunInput } from "./run_input.ts";
import { recordTrace, type SealScope, sealScope } from "./seal_scope.ts";
import { newSealedState } from "./sealed_run.ts";
import { encryptStep, sealedHistory } from "./sealed_steps.ts";
import { traceEvent, type TraceScope } from "./trace_records.ts";
import type { EngineDeps, TurnBase, TurnContext, TurnSession } from "./turn_context.ts";
import { runTurns } from "./turn_loop.ts";
import { persistMessage, readingFrom } from "./turn_records.ts";
import { noRecords } from "../store/turn_writes.ts";
import type { PhaseClock } from "../telemetry/phase_clock.ts";

export interface TurnCall {
  deps: EngineDeps;
  session: TurnSession;
  headers: Headers;
  stream: boolean;
  /** The API the turn was asked through: how its answer is written. */
  surface: TurnSurface;
  /** The request's phases (RequestContext.timing), carried on to the turn's end. */
  timing: PhaseClock;
  /**
   * The bearer token, for the claim to check (nothing read it before): then
   * `session` is what the caller expects (its id and user, plaintext), and a
   * claim that finds otherwise throws `ClaimRefused`, having written nothing
   * (claim_auth.ts).
   */
  auth?: TokenCheck;
}

/** Records the pending tool calls of a superseded pause as cancelled. */
export async function cancelPendingCalls(
  deps: EngineDeps,
  scope: TraceScope,
  previous: RunRow | null,
  seal: SealScope | null,
): Promise<void> {
  // A running run was continued: its pause, kept for the continuation's check, was answered.
  if (previous?.state !== "awaiting_client") return;
  const pause = previous.pause as Pause | null;
  if (pause?.kind !== "tool") return;
  await recordTrace(
    deps.db,
    seal,
    pause.calls.map((c) =>
      traceEvent(scope, "tool_call", toolCallTracePayload(c.call_id, c.name, "cancelled"))
    ),
  );
}

export async function turnContextFor(
  call: TurnCall,
  run: { runId: string; turnId: string; input: RunInput; seal: SealScope | null },
): Promise<TurnBase> {
  const credentials = parseCredentialHeaders(call.headers);
  const rc = await catalogForRequest(call.deps.registry, credentials, {
    cache: call.deps.listingCache,
  });
  call.timing.lap("catalog");
  return { deps: call.deps, session: call.session, credentials, rc, timing: call.timing, ...run };
}

/** The sealed prompt of an encrypted session's execute: its own key, well formed (§8). */
function checkSealedPrompt(session: TurnSession, ciphertext: Envelope | undefined): void {
  if (session.key_id === null || ciphertext === undefined) return;
  const problem = envelopeProblem(ciphertext, session.key_id);
  if (problem !== null) {
    throw ServiceError.of("invalid_request", `invalid input.ciphertext: ${problem}`, {
      path: "input.ciphertext",
    });
  }
}

/**
 * `ciphertext` is `input.ciphertext`, the prompt the client sealed; in an
 * encrypted session without it the prompt comes back in `to_encrypt`.
 */
export async function startRun(
  call: TurnCall,
  request: TurnRequest,
  ciphertext?: Envelope,
): Promise<Response> {
  const { deps, session } = call;
  call.timing.lap("parse");
  checkSealedPrompt(session, ciphertext);
  const input = newRunInput(request);
  const runId = deps.newId();
  const turnId = deps.newId();
  const seal = sealScope(session.key_id, newSealedState());
  // The catalog is listed before the claim: a slow listing must not hold the run.
  const base = await turnContextFor(call, { runId, turnId, input, seal });
  const now = deps.now();
  const scope = { sessionId: session.id, traceId: turnId, now };
  // A plaintext session's claim stores the prompt and reads history and memory in the same call.
  const prompt = seal === null ? noRecords() : undefined;
  if (prompt !== undefined) {
    await persistMessage({ ...base, records: prompt }, { role: "user", text: request.input.text });
  }
  await entered(call.timing);
  const claim = await deps.claims.claim({
    sessionId: session.id,
    runId,
    turnId,
    instance: deps.instance,
    now,
    userId: session.user_id,
    runInput: seal === null ? input as unknown as Record<string, unknown> : { ...seal.state },
    ...(prompt === undefined ? {} : {
      records: prompt,
      cancelledCall: traceEvent(scope, "tool_call", toolCallTracePayload("", "", "cancelled")),
      read: { userId: session.user_id, cache: deps.historyCache },
    }),
    ...claimAuth(call.auth),
  }).then((answer) => checkedBy(call.auth, answer));
  call.timing.lap("claim");
  if (claim.kind === "in_flight") {
    throw ServiceError.of(
      "run_in_flight",
      "run in flight: a turn of this session is already running",
    );
  }
  deps.telemetry.runClaimed("execute", claim.superseded !== null);
  if (seal !== null) await cancelPendingCalls(deps, scope, claim.superseded, seal);
  const reading = readingFrom(base, claim.reading);
  return await respondWithTurn({
    deps,
    sessionId: call.session.id,
    runId,
    turnId,
    seq: claim.run.supersede_seq,
    stream: call.stream,
    surface: call.surface,
    timing: call.timing,
    async run(live) {
      const t: TurnContext = {
        ...base,
        ...live,
        ...(reading === undefined ? {} : { reading }),
        budgeted: claim.budgeted,
      };
      if (seal === null) return await runTurns(t);
      await persistMessage(t, {
        role: "user",
        text: request.input.text,
        ...(ciphertext !== undefined ? { sealed: { ...ciphertext } } : {}),
      });
      if (Object.keys(await sealedHistory({ ...t, seal })).length > 0) {
        // Sealed history must be opened first: the run input is sealed to survive that pause.
        const ref = `run_input:${turnId}`;
        seal.toEncrypt[ref] = JSON.stringify(input);
        seal.state.pending = { ref, skip: 0 };
        return await encryptStep({ ...t, seal }, "decrypt");
      }
      return await runTurns(t);
    },
  });
}
