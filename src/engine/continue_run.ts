/**
 * `continue` (interface.md "POST …/continue", decisions.md §2, §7): a
 * continuation answering the pause claims the waiting run in one statement
 * (of parallel continues exactly one proceeds, the rest get 409), is checked
 * against the pause (bad data gives the run back to the client, checkpoint
 * kept), applied to the run input, and the turn loop goes on. `break` and
 * `inject` supersede whatever the run is doing, on any instance.
 */
import { approvalTarget, approvalTracePayload } from "../core/approvals.ts";
import type { Continuation } from "../core/continuation.ts";
import { checkContinuation, type CheckedContinuation } from "../core/continuation_check.ts";
import { ServiceError } from "../core/errors.ts";
import { admit, claimableFrom } from "../core/run_admission.ts";
import { IDLE_RUN, type Pause, type RunSnapshot } from "../core/run_state.ts";
import { toolCallTracePayload } from "../core/tool_mediation.ts";
import { idleEnvelope } from "../core/turn_envelope.ts";
import { recordApproval } from "../store/approvals.ts";
import { claimForContinue, supersede } from "../store/run_admission.ts";
import { findLiveRun, returnToClient, type RunRow, saveRunInput } from "../store/runs.ts";
import { appendTraceEvents, type NewTraceEvent } from "../store/traces.ts";
import { respondWithTurn } from "./respond.ts";
import { cancelUnanswered, readRunInput, type RunInput } from "./run_input.ts";
import { cancelPendingCalls, type TurnCall, turnContextFor } from "./start_run.ts";
import { traceEvent, type TraceScope } from "./trace_records.ts";
import type { TurnContext, TurnResult } from "./turn_context.ts";
import { runTurns } from "./turn_loop.ts";
import { finishTurn, persistMessage } from "./turn_records.ts";

export const PLAN_APPROVED = "The plan is approved: carry it out.";

function snapshot(run: RunRow | null): RunSnapshot {
  if (run === null) return IDLE_RUN;
  return { state: run.state, pause: run.pause as Pause | null };
}

function refuse(kind: Continuation["type"], run: RunRow | null): never {
  const verdict = admit(kind, snapshot(run));
  if (verdict.ok) throw new Error("a refused claim was admitted");
  throw new ServiceError(verdict.failure);
}

type Resume = "loop" | "idle";

/** Applies a checked answer to the run input and records its approvals; says what comes next. */
async function apply(
  t: Omit<TurnContext, "sink" | "signal">,
  checked: CheckedContinuation,
): Promise<Resume> {
  const { deps, input } = t;
  const scope: TraceScope = { sessionId: t.session.id, traceId: t.turnId, now: deps.now() };
  const events: NewTraceEvent[] = [];
  const approve = async (
    type: string,
    id: string,
    decision: "approved" | "rejected",
    reason?: string | null,
  ) => {
    await recordApproval(deps.db, {
      id: deps.newId(),
      sessionId: t.session.id,
      runId: t.runId,
      targetType: type,
      targetId: id,
      decision,
      reason: reason ?? null,
      now: deps.now(),
    });
    events.push(
      traceEvent(scope, "approval", {
        ...approvalTracePayload(type as "plan", id, decision, reason),
      }),
    );
  };
  if (checked.type === "tool_results") {
    for (const a of checked.approvals) await approve("tool_call", a.call_id, a.decision);
    for (const r of checked.results) {
      const status = r.decision === "rejected" ? "rejected" : r.is_error ? "failed" : "completed";
      events.push(traceEvent(scope, "tool_call", toolCallTracePayload(r.call_id, r.name, status)));
    }
    for (const r of checked.for_model) {
      input.conversation.push({
        role: "tool",
        callId: r.call_id,
        content: r.content,
        isError: r.is_error,
      });
    }
  } else if (checked.type === "approval_decisions") {
    for (const d of checked.decisions) {
      const target = approvalTarget(d.approval);
      await approve(target.target_type, target.target_id, d.decision, d.reason);
      if (d.decision === "approved" && d.approval.kind === "remote_disclosure") {
        input.approved_paths.push(...(d.approval.paths ?? []));
      }
      if (d.decision === "approved" && d.approval.kind === "cost_limit") {
        input.cost_limit_approved = true;
      }
    }
    if (checked.outcome === "ordinary_turn") {
      input.plan_mode = false;
      input.conversation.push({ role: "user", content: PLAN_APPROVED });
    }
  }
  await appendTraceEvents(deps.db, events);
  return checked.type === "approval_decisions" && checked.outcome === "idle" ? "idle" : "loop";
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
  const checked = checkContinuation(continuation, null, null);
  if (!checked.ok) throw new ServiceError(checked.failure);
  const taken = await supersede(deps.db, {
    sessionId: session.id,
    turnId,
    instance: deps.instance,
    now: deps.now(),
  });
  if (taken === null) refuse(continuation.type, null);
  const scope = { sessionId: session.id, traceId: turnId, now: deps.now() };
  await cancelPendingCalls(deps, scope, taken.previous);
  const input: RunInput = readRunInput(taken.run.run_input);
  cancelUnanswered(input);
  const base = await turnContextFor(call, { runId: taken.run.id, turnId, input });
  return await respondWithTurn({
    deps,
    runId: taken.run.id,
    turnId,
    seq: taken.run.supersede_seq,
    stream: call.stream,
    async run(sink, signal) {
      const t: TurnContext = { ...base, sink, signal };
      if (checked.value.type !== "inject") return await idleTurn(t);
      const text = checked.value.text;
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
  if (session.key_id !== null) {
    throw ServiceError.of(
      "not_implemented",
      "encrypted sessions cannot run turns on this service yet",
    );
  }
  const turnId = deps.newId();
  if (continuation.type === "break" || continuation.type === "inject") {
    return await supersedeRun(call, continuation, turnId);
  }
  const waiting = claimableFrom(continuation.type).find((c) => c.state === "awaiting_client");
  const claim = await claimForContinue(deps.db, {
    sessionId: session.id,
    turnId,
    instance: deps.instance,
    now: deps.now(),
    pauseKinds: waiting?.pause_kinds ?? [],
  });
  if (claim.kind === "no_active_run") refuse(continuation.type, null);
  if (claim.kind !== "claimed") refuse(continuation.type, claim.run);
  const run = claim.run;
  const checked = checkContinuation(continuation, run.pause as Pause | null, null);
  if (!checked.ok) {
    await returnToClient(deps.db, { runId: run.id, turnId, now: deps.now() });
    throw new ServiceError(checked.failure);
  }
  const input = readRunInput(run.run_input);
  const base = await turnContextFor(call, { runId: run.id, turnId, input });
  const next = await apply(base, checked.value);
  return await respondWithTurn({
    deps,
    runId: run.id,
    turnId,
    seq: run.supersede_seq,
    stream: call.stream,
    async run(sink, signal) {
      const t: TurnContext = { ...base, sink, signal };
      return next === "idle" ? await idleTurn(t) : await runTurns(t);
    },
  });
}
