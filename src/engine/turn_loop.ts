/**
 * The turn loop of interface.md for every model invocation: classify again,
 * assemble candidate context, select a model, check the approvals a call
 * needs, invoke (moving to the next candidate on a failure decisions.md §7
 * allows while nothing reached the client), then complete, pause for the
 * client, or mediate tool calls and loop.
 */
import { preCallApproval } from "../core/approvals.ts";
import { failure } from "../core/errors.ts";
import { constrainedPathMatcher } from "../core/privacy.ts";
import { approvalPause } from "../core/run_state.ts";
import { offeredTools, toolCatalog } from "../core/tool_catalog.ts";
import { isClientBound, type MediationContext } from "../core/tool_mediation.ts";
import { decideTurn, type TurnDecision } from "../core/turn_decision.ts";
import { awaitingApprovalEnvelope } from "../core/turn_envelope.ts";
import {
  reasoningDelta,
  textDelta,
  toolCallStarted,
  usageEvent,
} from "../core/turn_stream_events.ts";
import { ProviderError } from "../providers/errors.ts";
import { findProvider } from "../providers/registry.ts";
import { catalogInput } from "../providers/request_catalog.ts";
import { promptMessages, systemPreamble } from "./prompt.ts";
import { fallbacks } from "./fallback_hops.ts";
import { callModel, type ModelReply, promptCaching } from "./provider_call.ts";
import { toolExchanges } from "./run_input.ts";
import { decisionEvents, decisionScope, fallbackHopEvent } from "./trace_records.ts";
import type { TurnContext, TurnResult } from "./turn_context.ts";
import {
  baseScope,
  failTurn,
  loadMemory,
  noteTrace,
  pauseTurn,
  persistMessage,
  readSession,
  recordCost,
} from "./turn_records.ts";
import { afterReply } from "./turn_reply.ts";
import { admitModelCall, outputLimitEvent, settleModelCall, settleUnknown } from "./budget_gate.ts";
import type { HistoryMessage, MemoryEntry } from "../core/run_items.ts";

/** Model calls one request may make while every tool call is answered by the service. */
export const MAX_MODEL_CALLS = 16;

function mediationContext(t: TurnContext, d: TurnDecision): MediationContext {
  const request = t.input.request;
  return {
    catalog: toolCatalog(request),
    permissions: d.permissions,
    plan_mode: t.input.plan_mode,
    constrained: constrainedPathMatcher(request.policy),
    workspace_root: request.workspace.root,
  };
}

async function invoke(
  t: TurnContext,
  d: TurnDecision,
  history: HistoryMessage[],
  memory: MemoryEntry[],
  mediation: MediationContext,
  outputLimit: number | null,
): Promise<ModelReply> {
  const model = d.routing.model;
  const entry = findProvider(t.deps.registry, model.provider);
  if (entry === undefined) throw new Error(`routed to an unregistered provider`);
  // A denied tool is not offered at all, the service's own memory tool included (§3).
  const tools = offeredTools(mediation.catalog, mediation.permissions, mediation.plan_mode)
    .map(({ name, description, parameters }) => ({ name, description, parameters }));
  const stream = t.sink.streaming && model.capabilities.streaming === true;
  const probe = t.probe.call(model, stream, t.seal !== null);
  const reply = await callModel({
    entry,
    model,
    // Only the provider that needs it gets the credential.
    apiKey: model.auth === "none" ? undefined : t.credentials.get(model.provider),
    timeoutMs: t.deps.config.limits.providerTimeoutMs,
    system: systemPreamble(d.context.included, memory, t.input.request),
    messages: promptMessages(d.context.included, history, t.input),
    tools,
    effort: d.routing.effort,
    ...(outputLimit === null ? {} : { maxOutputTokens: outputLimit }),
    stream,
    caching: promptCaching(t.input.request.policy, t.session.id),
    signal: t.signal,
    newId: t.deps.newId,
    timing: t.timing,
    onEvent: (e) => {
      probe.firstDelta();
      if (e.type === "text") t.sink.emit(textDelta(e.delta));
      else if (e.type === "reasoning") t.sink.emit(reasoningDelta(e.delta));
      else if (e.type === "tool_started" && isClientBound(e.name, mediation)) {
        t.sink.emit(toolCallStarted(e.call_id, e.name));
      }
    },
  }).catch((error) => {
    if (error instanceof ProviderError) probe.fail(error.category, error.code);
    throw error;
  });
  probe.end(reply);
  return reply;
}

/** Runs the turn loop; a cut turn of an encrypted session returns what it must hand over. */
export async function runTurns(t: TurnContext): Promise<TurnResult> {
  const result = await loop(t);
  if (result.kind !== "superseded" || t.seal === null) return result;
  const { partial, toEncrypt, plain } = t.seal;
  return { kind: "superseded", handoff: { partial, toEncrypt, input: t.input, plain } };
}

async function loop(t: TurnContext): Promise<TurnResult> {
  const tried = fallbacks();
  // History is read once a request; memory again after the service answered tool calls.
  const reading = t.reading ?? await readSession(t);
  const history = reading.history;
  for (let calls = 0; calls < MAX_MODEL_CALLS; calls++) {
    if (t.signal.aborted) return { kind: "superseded" };
    const memory = calls === 0 ? reading.memory : await loadMemory(t);
    if (calls > 0 || t.reading === undefined) t.timing.lap("session");
    const provided = catalogInput(t.rc);
    const routing = t.probe.routing();
    const decided = decideTurn({
      request: t.input.request,
      ...provided,
      catalog: tried.usable(provided.catalog),
      history,
      memory,
      tool_exchanges: toolExchanges(t.input),
      approved_paths: t.input.approved_paths,
      classification_text: t.input.text,
    });
    routing.end(decided);
    if (!decided.ok) return await failTurn(t, tried.noCandidate(decided.failure));
    const d = decided.value;
    await noteTrace(t, decisionEvents(baseScope(t), d));
    const approval = preCallApproval({
      approval_id: t.deps.newId(),
      model: d.routing.model,
      disclosure_paths: d.disclosure_paths,
      rule: d.routing.rule,
      estimate: d.estimate,
      cost_limit_approved: t.input.cost_limit_approved,
    });
    if (approval !== null) {
      if (!(await pauseTurn(t, approvalPause([approval])))) return { kind: "superseded" };
      return {
        kind: "envelope",
        envelope: awaitingApprovalEnvelope(approval, t.turnId, t.seal?.toEncrypt),
      };
    }
    t.timing.lap("decision");
    // The budget admits the call before anything of it starts (decisions.md §13).
    const admitted = await admitModelCall(t, d);
    t.timing.lap("budget");
    if (!admitted.ok) return await failTurn(t, admitted.failure);
    if (admitted.limitNote !== null) {
      await noteTrace(t, [outputLimitEvent(t, d, admitted.limitNote)]);
    }
    t.sink.begin();
    const mediation = mediationContext(t, d);
    let reply: ModelReply;
    try {
      reply = await invoke(t, d, history, memory, mediation, admitted.outputLimit);
    } catch (error) {
      if (!(error instanceof ProviderError)) {
        await settleUnknown(t, admitted.reservation);
        throw error;
      }
      await settleModelCall(t, d, admitted.reservation, null);
      const next = tried.failed(d.routing.model, error, t.sink.delivered);
      if ("failure" in next) return await failTurn(t, next.failure);
      t.probe.fallback(d.routing.model, error.category);
      await noteTrace(t, [fallbackHopEvent(decisionScope(baseScope(t), d), next.hop)]);
      continue;
    }
    await settleModelCall(t, d, admitted.reservation, reply.usage, reply.text);
    const usage = await recordCost(t, d, reply.usage);
    t.sink.emit(usageEvent(usage));
    const constrained = d.context.included.some((i) => i.constrained) ||
      t.input.constrained_calls.length > 0;
    if (reply.interrupted) {
      if (reply.text !== "" && t.seal !== null) {
        const seq = await persistMessage(t, {
          role: "assistant",
          text: reply.text,
          model: d.routing.model,
          constrained,
          interrupted: true,
        });
        t.seal.partial = { ref: `message:${seq}`, text: reply.text };
      } else if (reply.text !== "") {
        await persistMessage(t, {
          role: "assistant",
          text: reply.text,
          model: d.routing.model,
          constrained,
          interrupted: true,
        });
      }
      return { kind: "superseded" };
    }
    const next = await afterReply(t, d, reply, usage, mediation, constrained);
    if (next !== "call_model") return next;
  }
  return await failTurn(
    t,
    failure("internal_error", `the model was called ${MAX_MODEL_CALLS} times without an answer`),
  );
}
