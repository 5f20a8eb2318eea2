/**
 * A turn of one model call over a conversation the client sent (the
 * compatible surfaces, decisions.md §12): claimed, decided, called and
 * recorded as a native turn is, through the same core decision, provider
 * layer and records, with three differences. The conversation is the
 * client's (no stored history is added); the tools are the client's, offered
 * unless the policy denies them and never executed here; and a turn that
 * would pause for an approval is refused before any model call.
 */
import { preCallApproval } from "../core/approvals.ts";
import { failure, ServiceError } from "../core/errors.ts";
import { toolCallTracePayload } from "../core/tool_mediation.ts";
import { estimateRequestTokens } from "../core/tokens.ts";
import { decideTurn, type TurnDecision } from "../core/turn_decision.ts";
import type { TurnRequest } from "../core/turn_request_types.ts";
import { textDelta } from "../core/turn_stream_events.ts";
import { ProviderError } from "../providers/errors.ts";
import { findProvider } from "../providers/registry.ts";
import { catalogInput } from "../providers/request_catalog.ts";
import { unsupportedOption } from "../providers/request_support.ts";
import type { ChatMessage, SamplingOptions, ToolChoice, ToolSpec } from "../providers/types.ts";
import { noRecords } from "../store/turn_writes.ts";
import { admitModelCall, outputLimitEvent, settleModelCall, settleUnknown } from "./budget_gate.ts";
import { assembleConversation, type ConversationSplit } from "./conversation_split.ts";
import { fallbacks } from "./fallback_hops.ts";
import { callModel, type ModelReply } from "./provider_call.ts";
import { respondWithTurn } from "./respond.ts";
import { newRunInput } from "./run_input.ts";
import { type TurnCall, turnContextFor } from "./start_run.ts";
import { decisionEvents, decisionScope, fallbackHopEvent, traceEvent } from "./trace_records.ts";
import type { ModelAnswer, TurnContext, TurnResult } from "./turn_context.ts";
import {
  baseScope,
  failTurn,
  finishTurn,
  noteTrace,
  persistMessage,
  recordCost,
} from "./turn_records.ts";

/** What a compatible surface asks for, translated at its edge. */
export interface ConversationTurn {
  /**
   * The turn request the core decides on: the last user message's text as the
   * input, the named policy, an explicit model when the client named one.
   */
  request: TurnRequest;
  /** The client's system prompt, sent as it is; null: none. */
  system: string | null;
  /** What classification reads when it is not the whole prompt (text a harness injected left out). */
  classificationText?: string;
  split: ConversationSplit;
  tools: readonly ToolSpec[];
  toolChoice?: ToolChoice;
  sampling?: SamplingOptions;
  maxOutputTokens?: number;
  /** Maps a neutral request option the chosen provider cannot honour to the surface's field name. */
  fieldOf(option: string): string;
  /** The digest of the conversation as answered, recorded with the turn so its next request finds it. */
  answeredDigest(answer: ModelAnswer): string;
}

/** The client's tools the policy lets the model see: `deny` hides one (decisions.md §12). */
function offered(turn: ConversationTurn, d: TurnDecision): ToolSpec[] {
  return turn.tools.filter((tool) => (d.permissions[tool.name] ?? "ask") !== "deny");
}

/** The approval a native turn would pause for, as the refusal these surfaces answer instead. */
function refusal(d: TurnDecision, approval: NonNullable<ReturnType<typeof preCallApproval>>) {
  const ref = `${d.routing.model.provider}/${d.routing.model.model}`;
  const rule = d.routing.rule === null ? "the default route" : `rule '${d.routing.rule.name}'`;
  const need = approval.kind === "remote_disclosure"
    ? `approval to send content of ${
      (approval.detail as { paths: string[] }).paths.map((p) => `'${p}'`).join(", ")
    } to the remote model '${ref}' (privacy.remote.mode is 'ask')`
    : `approval of an estimated cost over the limit of ${rule} for '${ref}'`;
  return failure(
    "approval_required",
    `approval required: ${rule} would need ${need}, and this API cannot ask; ` +
      "allow it in the policy or use the native API",
    { kind: approval.kind, ...approval.detail },
  );
}

async function invoke(
  t: TurnContext,
  turn: ConversationTurn,
  d: TurnDecision,
  tools: ToolSpec[],
  outputLimit: number | null,
): Promise<ModelReply> {
  const model = d.routing.model;
  const maxOutputTokens = outputLimit ?? turn.maxOutputTokens;
  const entry = findProvider(t.deps.registry, model.provider);
  if (entry === undefined) throw new Error(`routed to an unregistered provider`);
  const labels = new Set(
    d.context.included.filter((i) => i.kind === "message").map((i) => i.label),
  );
  const messages: ChatMessage[] = assembleConversation(turn.split, labels);
  const stream = t.sink.streaming && model.capabilities.streaming === true;
  const probe = t.probe.call(model, stream, false);
  t.sink.emit({
    type: "call_started",
    provider: model.provider,
    model: model.model,
    input_tokens: d.context.input_tokens,
  });
  const reply = await callModel({
    entry,
    model,
    apiKey: model.auth === "none" ? undefined : t.credentials.get(model.provider),
    timeoutMs: t.deps.config.limits.providerTimeoutMs,
    system: turn.system ?? "",
    messages,
    tools,
    effort: d.routing.effort,
    ...(turn.toolChoice === undefined ? {} : { toolChoice: turn.toolChoice }),
    ...(turn.sampling === undefined ? {} : { sampling: turn.sampling }),
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    stream,
    signal: t.signal,
    newId: t.deps.newId,
    onEvent: (e) => {
      probe.firstDelta();
      if (e.type === "text") t.sink.emit(textDelta(e.delta));
      else if (e.type === "tool_complete") {
        t.sink.emit({
          type: "call_tool",
          index: e.index,
          call_id: e.call.providerCall?.id ?? e.call.callId,
          name: e.call.name,
          arguments: e.call.arguments,
        });
      }
    },
  }).catch((error) => {
    if (error instanceof ProviderError) probe.fail(error.category, error.code);
    throw error;
  });
  probe.end(reply);
  return reply;
}

/** The option the chosen provider cannot honour, as a 400 naming the surface's field. */
function unhonoured(t: TurnContext, turn: ConversationTurn, d: TurnDecision, tools: ToolSpec[]) {
  const { provider, model, capabilities } = d.routing.model;
  const entry = findProvider(t.deps.registry, provider);
  if (entry === undefined) return null;
  const messages = [...turn.split.units.flat(), turn.split.prompt, ...turn.split.tail];
  const images = messages.some((m) => m.role === "user" && (m.images?.length ?? 0) > 0);
  const option = images && capabilities.images !== true ? "images" : unsupportedOption(
    entry.protocol,
    {
      model,
      messages,
      tools,
      ...(turn.toolChoice === undefined ? {} : { toolChoice: turn.toolChoice }),
      ...(turn.sampling === undefined ? {} : { sampling: turn.sampling }),
      ...(capabilities.reasoning === true ? { effort: d.routing.effort } : {}),
      stream: false,
    },
  );
  if (option === null) return null;
  const field = turn.fieldOf(option);
  return failure(
    "invalid_request",
    `unsupported parameter "${field}": the chosen model '${provider}/${model}' cannot honour it`,
    { path: field, provider, model, unsupported: true },
  );
}

/**
 * The request's estimate as `count_tokens` / `input_tokens` answer it: the
 * system prompt, every tool the client sent and every message (decisions.md §15).
 */
export function conversationTokens(turn: ConversationTurn): number {
  return estimateRequestTokens({
    system: turn.system ?? "",
    tools: turn.tools,
    messages: [...turn.split.units.flat(), turn.split.prompt, ...turn.split.tail],
  });
}

async function oneCall(t: TurnContext, turn: ConversationTurn): Promise<TurnResult> {
  const tried = fallbacks();
  const sent = conversationTokens(turn);
  for (;;) {
    if (t.signal.aborted) return { kind: "superseded" };
    const provided = catalogInput(t.rc);
    const routing = t.probe.routing();
    const decided = decideTurn({
      request: turn.request,
      ...provided,
      catalog: tried.usable(provided.catalog),
      history: turn.split.history,
      tool_exchanges: turn.split.exchanges,
      conversation_paths: turn.split.conversationPaths,
      sent_tokens: sent,
      ...(turn.classificationText === undefined
        ? {}
        : { classification_text: turn.classificationText }),
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
      cost_limit_approved: false,
    });
    if (approval !== null) return await failTurn(t, refusal(d, approval));
    const tools = offered(turn, d);
    const refused = unhonoured(t, turn, d, tools);
    if (refused !== null) return await failTurn(t, refused);
    // The budget admits the call before anything of it starts (decisions.md §13).
    const admitted = await admitModelCall(t, d, turn.maxOutputTokens);
    if (!admitted.ok) return await failTurn(t, admitted.failure);
    if (admitted.limitNote !== null) {
      await noteTrace(t, [outputLimitEvent(t, d, admitted.limitNote)]);
    }
    t.sink.begin();
    let reply: ModelReply;
    try {
      reply = await invoke(t, turn, d, tools, admitted.outputLimit);
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
    return await answered(t, turn, d, reply);
  }
}

/** Records the reply (message, its tool calls, cost) and ends the run idle. */
async function answered(
  t: TurnContext,
  turn: ConversationTurn,
  d: TurnDecision,
  reply: ModelReply,
): Promise<TurnResult> {
  const usage = await recordCost(t, d, reply.usage);
  const constrained = d.context.included.some((i) => i.constrained);
  const scope = decisionScope(baseScope(t), d);
  await persistMessage(t, {
    role: "assistant",
    text: reply.text,
    model: d.routing.model,
    constrained,
    ...(reply.interrupted ? { interrupted: true } : { interruptedUnlessMoved: true }),
  }, scope);
  await noteTrace(
    t,
    reply.toolCalls.map((c) =>
      // These surfaces serve plaintext sessions only: the arguments are readable (decisions.md §12).
      traceEvent(
        scope,
        "tool_call",
        toolCallTracePayload(
          c.callId,
          c.name,
          "requested",
          t.seal === null ? c.arguments : undefined,
        ),
      )
    ),
  );
  if (reply.interrupted) return { kind: "superseded" };
  const answer: ModelAnswer = {
    provider: d.routing.model.provider,
    model: d.routing.model.model,
    text: reply.text,
    toolCalls: reply.toolCalls.map((c) => ({
      // The client answers the provider's own id, which it replays to the next model as it is.
      callId: c.providerCall?.id ?? c.callId,
      name: c.name,
      arguments: c.arguments,
    })),
    stopReason: reply.stopReason,
    inputTokens: usage.input_tokens ?? null,
    outputTokens: usage.output_tokens ?? null,
  };
  (t.records.conversations ??= []).push({
    userId: t.session.user_id,
    digest: turn.answeredDigest(answer),
    sessionId: t.session.id,
    now: t.deps.now(),
  });
  if (!(await finishTurn(t, "idle"))) return { kind: "superseded" };
  return { kind: "answer", answer };
}

/**
 * Claims the session's run (409 `run_in_flight` while another turn of it
 * runs), records what the request added to the conversation (its new user
 * message, or the results it brings), and runs the one model call.
 */
export async function startConversationTurn(
  call: TurnCall,
  turn: ConversationTurn,
): Promise<Response> {
  const { deps, session } = call;
  const runId = deps.newId();
  const turnId = deps.newId();
  const input = newRunInput(turn.request);
  const base = await turnContextFor(call, { runId, turnId, input, seal: null });
  const now = deps.now();
  const scope = { sessionId: session.id, traceId: turnId, now };
  const records = noRecords();
  if (turn.split.tail.length === 0) {
    await persistMessage(
      { ...base, records },
      { role: "user", text: turn.split.prompt.content },
      scope,
    );
  }
  for (const m of turn.split.tail) {
    if (m.role !== "tool") continue;
    const exchange = turn.split.exchanges.find((e) => e.call_id === m.callId);
    records.trace.push(
      traceEvent(
        scope,
        "tool_call",
        // The arguments as the client's conversation carries them: this turn's own record of
        // which call it answers (the session is plaintext).
        toolCallTracePayload(
          m.callId,
          exchange?.name ?? "",
          m.isError ? "failed" : "completed",
          exchange?.arguments,
        ),
      ),
    );
  }
  const claim = await deps.claims.claim({
    sessionId: session.id,
    runId,
    turnId,
    instance: deps.instance,
    now,
    userId: session.user_id,
    runInput: input as unknown as Record<string, unknown>,
    records,
    cancelledCall: traceEvent(scope, "tool_call", toolCallTracePayload("", "", "cancelled")),
  });
  if (claim.kind === "in_flight") {
    throw ServiceError.of(
      "run_in_flight",
      "run in flight: a turn of this session is already running",
    );
  }
  deps.telemetry.runClaimed("execute", claim.superseded !== null);
  return await respondWithTurn({
    deps,
    runId,
    turnId,
    seq: claim.run.supersede_seq,
    stream: call.stream,
    surface: call.surface,
    run: (live) => oneCall({ ...base, ...live, budgeted: claim.budgeted }, turn),
  });
}
