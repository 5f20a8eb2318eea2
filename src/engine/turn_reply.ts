/**
 * What a turn does with a complete model reply (interface.md "Turn loop" step
 * 6, decisions.md §3, §7, §9): complete the run, pause for a plan approval,
 * return client-bound tool calls with `awaiting_tool`, or, when the service
 * answered every call itself (denied, memory), go round the loop again.
 */
import { planApproval } from "../core/approvals.ts";
import { approvalPause, encryptPause, toolPause } from "../core/run_state.ts";
import { stepAfterReply } from "../core/run_steps.ts";
import {
  mediateToolCalls,
  type MediationContext,
  memoryResult,
  resultsForModel,
  type ServiceResult,
  toolCallTracePayload,
  type ToolMediation,
} from "../core/tool_mediation.ts";
import type { TurnDecision } from "../core/turn_decision.ts";
import {
  assistantMessage,
  awaitingApprovalEnvelope,
  awaitingToolEnvelope,
  completedEnvelope,
  turnContext,
  turnRouting,
  type TurnUsage,
} from "../core/turn_envelope.ts";
import { toolCallRequested } from "../core/turn_stream_events.ts";
import { forgetMemory, listMemories, recordMemory } from "../store/memories.ts";
import type { ModelReply } from "./provider_call.ts";
import { decisionScope, traceEvent } from "./trace_records.ts";
import type { TurnContext, TurnResult } from "./turn_context.ts";
import {
  baseScope,
  finishTurn,
  noteTrace,
  pauseTurn,
  persistMessage,
  writePause,
} from "./turn_records.ts";

async function runMemory(t: TurnContext, m: ToolMediation): Promise<ServiceResult[]> {
  const out: ServiceResult[] = [];
  for (const call of m.memory) {
    const scope = {
      userId: t.session.user_id,
      sessionId: call.op.scope === "user" ? null : t.session.id,
    };
    let existed: boolean;
    if (call.op.op === "forget") {
      existed = await forgetMemory(t.deps.db, { ...scope, key: call.op.key });
    } else {
      const all = await listMemories(t.deps.db, scope, 100_000);
      existed = all.some((row) => row.key === call.op.key);
      // Session memory of an encrypted session is stored once the client seals it (§8, §9).
      const sealed = t.seal !== null && scope.sessionId !== null;
      const row = await recordMemory(t.deps.db, {
        ...scope,
        id: t.deps.newId(),
        key: call.op.key,
        value: sealed ? {} : { plaintext: call.op.value },
        now: t.deps.now(),
      });
      if (sealed) t.seal!.toEncrypt[`memory:${row.id}`] = call.op.value ?? "";
    }
    out.push(memoryResult(call, existed));
  }
  return out;
}

async function complete(
  t: TurnContext,
  d: TurnDecision,
  reply: ModelReply,
  usage: TurnUsage,
  constrained: boolean,
): Promise<TurnResult> {
  if (t.seal !== null) return await completeSealed(t, d, reply, usage, constrained);
  await persistMessage(t, {
    role: "assistant",
    text: reply.text,
    model: d.routing.model,
    constrained,
    interruptedUnlessMoved: true,
  }, decisionScope(baseScope(t), d));
  if (!(await finishTurn(t, "idle"))) return { kind: "superseded" };
  return {
    kind: "envelope",
    envelope: completedEnvelope({
      message: assistantMessage(reply.text, d.routing.model),
      classification: d.classification,
      routing: turnRouting(d.classification.intent, d.routing),
      context: turnContext(d.context),
      usage,
      trace_id: t.turnId,
      to_encrypt: {},
    }, false),
  };
}

function completedData(t: TurnContext, d: TurnDecision, reply: ModelReply, usage: TurnUsage) {
  return {
    message: assistantMessage(reply.text, d.routing.model),
    classification: d.classification,
    routing: turnRouting(d.classification.intent, d.routing),
    context: turnContext(d.context),
    usage,
    trace_id: t.turnId,
    to_encrypt: t.seal?.toEncrypt ?? {},
  };
}

/**
 * An encrypted run completes in two steps (interface.md "Run lifecycle"): the
 * turn answers `completed` with everything to seal, and the run goes idle
 * once `sealed` brings the envelopes back.
 */
async function completeSealed(
  t: TurnContext,
  d: TurnDecision,
  reply: ModelReply,
  usage: TurnUsage,
  constrained: boolean,
): Promise<TurnResult> {
  const seal = t.seal!;
  await persistMessage(t, {
    role: "assistant",
    text: reply.text,
    model: d.routing.model,
    constrained,
  }, decisionScope(baseScope(t), d));
  seal.state.then = "idle";
  const pause = encryptPause(Object.keys(seal.toEncrypt));
  if (!(await writePause(t, pause, { ...seal.state }))) return { kind: "superseded" };
  return { kind: "envelope", envelope: completedEnvelope(completedData(t, d, reply, usage), true) };
}

async function planPause(
  t: TurnContext,
  d: TurnDecision,
  reply: ModelReply,
  constrained: boolean,
): Promise<TurnResult> {
  const approvalId = t.deps.newId();
  const planId = t.deps.newId();
  const approval = planApproval(approvalId, planId, reply.text);
  if (t.seal !== null) t.seal.toEncrypt[`plan:${planId}`] = reply.text;
  t.input.conversation.push({ role: "assistant", content: reply.text });
  await persistMessage(t, {
    role: "assistant",
    text: reply.text,
    model: d.routing.model,
    constrained,
  }, decisionScope(baseScope(t), d));
  if (!(await pauseTurn(t, approvalPause([approval])))) return { kind: "superseded" };
  return {
    kind: "envelope",
    envelope: awaitingApprovalEnvelope(approval, t.turnId, t.seal?.toEncrypt),
  };
}

/** `call_model` when the loop should call the model again; otherwise the turn's result. */
export async function afterReply(
  t: TurnContext,
  d: TurnDecision,
  reply: ModelReply,
  usage: TurnUsage,
  ctx: MediationContext,
  constrained: boolean,
): Promise<TurnResult | "call_model"> {
  const calls = reply.toolCalls.map((c) => ({
    call_id: c.callId,
    name: c.name,
    arguments: c.arguments,
  }));
  const mediation = calls.length === 0 ? null : mediateToolCalls(calls, ctx);
  const step = stepAfterReply(t.input.plan_mode, mediation);
  if (step === "complete") return await complete(t, d, reply, usage, constrained);
  if (step === "plan_approval") return await planPause(t, d, reply, constrained);
  const m = mediation!;
  t.input.conversation.push({
    role: "assistant",
    content: reply.text,
    toolCalls: reply.toolCalls,
    ...(reply.reasoning.length > 0 ? { reasoning: reply.reasoning } : {}),
  });
  t.input.constrained_calls.push(...m.constrained_call_ids);
  const memory = await runMemory(t, m);
  const scope = decisionScope(baseScope(t), d);
  // Readable arguments only where the session is: an encrypted one keeps none (decisions.md §8).
  const argumentsToTrace = (c: { arguments: Record<string, unknown> }) =>
    t.seal === null ? c.arguments : undefined;
  const status = (id: string) =>
    m.tool_requests.some((r) => r.call_id === id)
      ? "requested" as const
      : memory.some((r) => r.call_id === id)
      ? "executed" as const
      : "denied" as const;
  await noteTrace(
    t,
    calls.map((c) =>
      traceEvent(
        scope,
        "tool_call",
        toolCallTracePayload(c.call_id, c.name, status(c.call_id), argumentsToTrace(c)),
      )
    ),
  );
  if (step === "call_model") {
    for (const r of resultsForModel(m.order, [...m.service_results, ...memory], [])) {
      t.input.conversation.push({
        role: "tool",
        callId: r.call_id,
        content: r.content,
        isError: r.is_error,
      });
    }
    return "call_model";
  }
  if (!(await pauseTurn(t, toolPause(m, memory)))) return { kind: "superseded" };
  for (const request of m.tool_requests) t.sink.emit(toolCallRequested(request));
  return {
    kind: "envelope",
    envelope: awaitingToolEnvelope(m.tool_requests, t.turnId, t.seal?.toEncrypt),
  };
}
