/**
 * `continue` (interface.md "POST …/continue", decisions.md §2, §7): a
 * continuation answering the pause claims the waiting run in one statement
 * (of parallel continues exactly one proceeds, the rest get 409), is checked
 * against the pause (bad data gives the run back to the client, checkpoint
 * kept), applied to the run input, and the turn loop goes on. `break` and
 * `inject` supersede whatever the run is doing, on any instance. An encrypted
 * session's continuations are sealed_continue.ts.
 */
import type { Continuation } from "../core/continuation.ts";
import { checkContinuation } from "../core/continuation_check.ts";
import { ServiceError } from "../core/errors.ts";
import { admit, claimableFrom } from "../core/run_admission.ts";
import { IDLE_RUN, type Pause, type RunSnapshot } from "../core/run_state.ts";
import { idleEnvelope } from "../core/turn_envelope.ts";
import { claimForContinue, supersede } from "../store/run_admission.ts";
import { findLiveRun, returnToClient, type RunRow, saveRunInput } from "../store/runs.ts";
import { applyToInput, recordAnswer } from "./answer_records.ts";
import { checkedBy, claimAuth, ClaimRefused } from "./claim_auth.ts";
import { respondWithTurn } from "./respond.ts";
import { cancelUnanswered, readRunInput, type RunInput } from "./run_input.ts";
import { continueSealed, supersedeSealed } from "./sealed_continue.ts";
import { cancelPendingCalls, type TurnCall, turnContextFor } from "./start_run.ts";
import type { TurnContext, TurnResult } from "./turn_context.ts";
import { runTurns } from "./turn_loop.ts";
import { finishTurn, persistMessage, readingFrom } from "./turn_records.ts";

export { PLAN_APPROVED } from "./plan_text.ts";

function snapshot(run: RunRow | null): RunSnapshot {
  if (run === null) return IDLE_RUN;
  return { state: run.state, pause: run.pause as Pause | null };
}

function refuse(kind: Continuation["type"], run: RunRow | null): never {
  const verdict = admit(kind, snapshot(run));
  if (verdict.ok) throw new Error("a refused claim was admitted");
  throw new ServiceError(verdict.failure);
}

async function idleTurn(t: TurnContext): Promise<TurnResult> {
  if (!(await finishTurn(t, "idle"))) return { kind: "superseded" };
  return { kind: "envelope", envelope: idleEnvelope(t.turnId) };
}

async function supersedeRun(
  call: TurnCall,
  continuation: Extract<Continuation, { type: "break" | "inject" }>,
  turnId: string,
): Promise<Response> {
  const { deps, session } = call;
  const live = await findLiveRun(deps.db, session.id);
  const verdict = admit(continuation.type, snapshot(live));
  if (!verdict.ok) throw new ServiceError(verdict.failure);
  const checked = checkContinuation(continuation, null, session.key_id);
  if (!checked.ok) throw new ServiceError(checked.failure);
  const value = checked.value as Extract<typeof checked.value, { type: "break" | "inject" }>;
  if (session.key_id !== null) {
    return await supersedeSealed(call, continuation, value, live!, turnId);
  }
  const taken = await supersede(deps.db, {
    sessionId: session.id,
    turnId,
    instance: deps.instance,
    now: deps.now(),
    userId: session.user_id,
  });
  call.timing.lap("claim");
  if (taken === null) refuse(continuation.type, null);
  deps.watcher.superseded(taken.run.id, taken.run.supersede_seq);
  deps.telemetry.runClaimed(continuation.type, true);
  const scope = { sessionId: session.id, traceId: turnId, now: deps.now() };
  await cancelPendingCalls(deps, scope, taken.previous, null);
  const input: RunInput = readRunInput(taken.run.run_input);
  cancelUnanswered(input);
  const base = await turnContextFor(call, { runId: taken.run.id, turnId, input, seal: null });
  return await respondWithTurn({
    deps,
    sessionId: call.session.id,
    runId: taken.run.id,
    turnId,
    seq: taken.run.supersede_seq,
    stream: call.stream,
    surface: call.surface,
    timing: call.timing,
    async run(live) {
      const t: TurnContext = { ...base, ...live, budgeted: taken.budgeted };
      if (value.type !== "inject") return await idleTurn(t);
      const text = value.text;
      await persistMessage(t, { role: "user", text });
      input.conversation.push({ role: "user", content: text });
      input.text = text;
      await saveRunInput(deps.db, {
        runId: t.runId,
        turnId,
        now: deps.now(),
        runInput: input as unknown as Record<string, unknown>,
      });
      return await runTurns(t);
    },
  });
}

export async function continueRun(call: TurnCall, continuation: Continuation): Promise<Response> {
  const { deps, session } = call;
  call.timing.lap("parse");
  const turnId = deps.newId();
  if (continuation.type === "break" || continuation.type === "inject") {
    // Its claim, a transaction of several statements, does not check a token: read it first.
    if (call.auth !== undefined) throw new ClaimRefused("unclaimed");
    return await supersedeRun(call, continuation, turnId);
  }
  const waiting = claimableFrom(continuation.type).find((c) => c.state === "awaiting_client");
  const claim = checkedBy(
    call.auth,
    await claimForContinue(deps.db, {
      sessionId: session.id,
      turnId,
      instance: deps.instance,
      now: deps.now(),
      userId: session.user_id,
      pauseKinds: waiting?.pause_kinds ?? [],
      // A plaintext run's claim reads its history and memory too (its first model call reads none).
      ...(session.key_id === null
        ? { read: { userId: session.user_id, cache: deps.historyCache } }
        : {}),
      ...claimAuth(call.auth),
    }),
  );
  call.timing.lap("claim");
  if (claim.kind === "no_active_run") refuse(continuation.type, null);
  if (claim.kind !== "claimed") refuse(continuation.type, claim.run);
  deps.telemetry.runClaimed("continue", false);
  const run = claim.run;
  const checked = checkContinuation(continuation, run.pause as Pause | null, session.key_id);
  if (!checked.ok) {
    await returnToClient(deps.db, { runId: run.id, turnId, now: deps.now() });
    throw new ServiceError(checked.failure);
  }
  const answer = checked.value;
  if (answer.type === "break" || answer.type === "inject") throw new Error("superseder claimed");
  if (session.key_id !== null) {
    return await continueSealed(call, run, continuation, answer, turnId);
  }
  if (answer.type !== "tool_results" && answer.type !== "approval_decisions") {
    // Admission matched the kind to the pause, and only encrypted runs pause to seal.
    throw new Error(`a plaintext run was answered with '${answer.type}'`);
  }
  const input = readRunInput(run.run_input);
  const base = await turnContextFor(call, { runId: run.id, turnId, input, seal: null });
  const reading = readingFrom(base, claim.reading);
  applyToInput(input, answer);
  return await respondWithTurn({
    deps,
    sessionId: call.session.id,
    runId: run.id,
    turnId,
    seq: run.supersede_seq,
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
      // The answer's trace events go in with the turn's write (or, cut, on its way out).
      const next = await recordAnswer(t, answer);
      return next === "idle" ? await idleTurn(t) : await runTurns(t);
    },
  });
}
