/**
 * A turn of one model call over a conversation the client sent (the
 * compatible surfaces, decisions.md §12): claimed, decided, called and
 * recorded as a native turn is, through the same core decision, provider
 * layer and records, with three differences. The conversation is the
 * client's (no stored history is added); the tools are the client's, offered
 * unless the policy denies them and never executed here; and a turn that
 * would pause for an approval is refused before any model call.
 */
import { checkedBy, claimAuth } from "./claim_auth.ts";
import { preCallApproval } from "../core/approvals.ts";
import { failure, ServiceError } from "../core/errors.ts";
import { toolCallTracePayload } from "../core/tool_mediation.ts";
import { estimateRequestTokens } from "../core/tokens.ts";
import { decideTurn, type TurnDecision, type TurnDecisionInput } from "../core/turn_decision.ts";
import type { TurnRequest } from "../core/turn_request_types.ts";
import { textDelta } from "../core/turn_stream_events.ts";
import { ProviderError } from "../providers/errors.ts";
import { findProvider } from "../providers/registry.ts";
import { catalogInput } from "../providers/request_catalog.ts";
import { REQUEST_SUPPORT, unsupportedOption } from "../providers/request_support.ts";
import { isRemoteImage } from "../providers/image_parts.ts";
import type { ContentNeed } from "../core/candidate_walk.ts";
import type {
  CacheMark,
  ChatMessage,
  SamplingOptions,
  ToolChoice,
  ToolSpec,
  UserMessage,
} from "../providers/types.ts";
import { noRecords, type TurnRecords } from "../store/turn_writes.ts";
import { admitModelCall, outputLimitEvent, settleModelCall, settleUnknown } from "./budget_gate.ts";
import { assembleConversation, type ConversationSplit } from "./conversation_split.ts";
import { fallbacks } from "./fallback_hops.ts";
import { imagesAsNotes, type OmittedImage } from "./image_notes.ts";
import { callModel, type ModelReply, promptCaching } from "./provider_call.ts";
import { RecordedTurnFailure } from "./recorded_failure.ts";
import { respondWithTurn } from "./respond.ts";
import { entered } from "./entry_queue.ts";
import { newRunInput } from "./run_input.ts";
import { type TurnCall, turnContextFor } from "./start_run.ts";
import {
  decisionEvents,
  decisionScope,
  fallbackHopEvent,
  traceEvent,
  type TraceScope,
} from "./trace_records.ts";
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
   * The native turn request the conversation equals, which the core decides
   * on (decisions.md §12): the last user message's own text as the input, the
   * conversation's tool-call paths as referenced paths, the results after the
   * last user message as required attachments, the named policy, an explicit
   * model when the client named one.
   */
  request: TurnRequest;
  /** The client's system prompt, sent as it is; null: none. */
  system: string | null;
  /** The client's cache breakpoint after its system prompt (Anthropic's `cache_control`). */
  systemCache?: CacheMark;
  /** The client's own prompt-cache key (OpenAI's `prompt_cache_key`); else the session's id. */
  cacheKey?: string;
  split: ConversationSplit;
  /** Attachment paths the equivalent body made up for path-less tool results: never disclosed paths. */
  madeUpPaths: ReadonlySet<string>;
  tools: readonly ToolSpec[];
  toolChoice?: ToolChoice;
  sampling?: SamplingOptions;
  maxOutputTokens?: number;
  /** Maps a neutral request option the chosen provider cannot honour to the surface's field name. */
  fieldOf(option: string): string;
  /** The digest of the conversation as answered, recorded with the turn so its next request finds it. */
  answeredDigest(answer: ModelAnswer): string;
  /** False: refuse (`context_window_exceeded`) a turn whose conversation would be trimmed to fit. */
  trimming?: boolean;
  /** The client's tools never offered to a model (hosted tools), listed in the trace as not offered. */
  notOffered?: readonly string[];
  /** What the surface records with the answer, in the turn's own write (a stored response). */
  recordAnswer?(
    answer: ModelAnswer,
    at: { turnId: string; sessionId: string; userId: string; now: Date },
    records: TurnRecords,
  ): void;
}

/**
 * What the request's content needs of a candidate (decisions.md §12): image
 * input for images in the last user message, JSON output for structured output.
 */
export function contentNeeds(
  request: { prompt: UserMessage; sampling?: SamplingOptions },
): ContentNeed[] {
  const needs: ContentNeed[] = [];
  if ((request.prompt.images?.length ?? 0) > 0) {
    needs.push({ capability: "images", because: "the last user message has images" });
  }
  const format = request.sampling?.responseFormat?.type;
  if (format === "json_object" || format === "json_schema") {
    needs.push({ capability: "json_output", because: `response format '${format}'` });
  }
  return needs;
}

/**
 * What the core decides a conversation's turn on: the native body it equals,
 * its history (discardable context), and what its content needs of a model.
 * The tool exchange and the conversation's paths are in the request, as the
 * native body has them.
 */
export function conversationDecisionInput(
  turn: ConversationTurn,
  provided: Omit<TurnDecisionInput, "request">,
): TurnDecisionInput {
  return {
    request: turn.request,
    ...provided,
    history: turn.split.history,
    sent_tokens: conversationTokens(turn),
    content_capabilities: contentNeeds({ prompt: turn.split.prompt, sampling: turn.sampling }),
  };
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

/**
 * The messages the chosen model gets: the included history, the prompt and
 * the tail; for a model without image input, every image as a text note; for
 * a provider that takes no image URLs, each image by URL outside the prompt
 * as a note (the prompt's own is refused, as any option it cannot honour).
 */
function messagesFor(t: TurnContext, turn: ConversationTurn, d: TurnDecision) {
  const labels = new Set(
    d.context.included.filter((i) => i.kind === "message").map((i) => i.label),
  );
  const messages: ChatMessage[] = assembleConversation(turn.split, labels);
  if (d.routing.model.capabilities.images !== true) {
    return { ...imagesAsNotes(messages), why: "no image input" };
  }
  const protocol = findProvider(t.deps.registry, d.routing.model.provider)?.protocol;
  if (protocol === undefined || REQUEST_SUPPORT[protocol].image_url) {
    return { messages, omitted: [], why: "" };
  }
  return {
    ...imagesAsNotes(messages, (image, m) => m !== turn.split.prompt && isRemoteImage(image)),
    why: "no image URLs",
  };
}

/** One excluded context item per image the chosen model did not get, with why. */
function omittedEvents(scope: TraceScope, omitted: readonly OmittedImage[], why: string) {
  return omitted.map((o) =>
    traceEvent(scope, "context_selection", {
      path: null,
      kind: "image",
      label: `message ${o.message}`,
      included: false,
      reason: why,
      media_type: o.media_type,
      bytes: o.bytes,
    })
  );
}

async function invoke(
  t: TurnContext,
  turn: ConversationTurn,
  d: TurnDecision,
  tools: ToolSpec[],
  messages: ChatMessage[],
  outputLimit: number | null,
): Promise<ModelReply> {
  const model = d.routing.model;
  const maxOutputTokens = outputLimit ?? turn.maxOutputTokens;
  const entry = findProvider(t.deps.registry, model.provider);
  if (entry === undefined) throw new Error(`routed to an unregistered provider`);
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
    ...(turn.systemCache === undefined ? {} : { systemCache: turn.systemCache }),
    messages,
    tools,
    effort: d.routing.effort,
    ...(turn.toolChoice === undefined ? {} : { toolChoice: turn.toolChoice }),
    ...(turn.sampling === undefined ? {} : { sampling: turn.sampling }),
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    stream,
    caching: promptCaching(t.input.request.policy, t.session.id, turn.cacheKey),
    signal: t.signal,
    newId: t.deps.newId,
    timing: t.timing,
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
function unhonoured(
  t: TurnContext,
  turn: ConversationTurn,
  d: TurnDecision,
  tools: ToolSpec[],
  messages: readonly ChatMessage[],
) {
  const { provider, model, capabilities } = d.routing.model;
  const entry = findProvider(t.deps.registry, provider);
  if (entry === undefined) return null;
  // Only the prompt's images gate (an explicit model is not gated); others become notes.
  const images = (turn.split.prompt.images?.length ?? 0) > 0;
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

/** Whether the decision dropped conversation messages to fit the chosen model's window. */
function trimmed(d: TurnDecision): boolean {
  return d.context.excluded.some((e) => e.item.kind === "message" && e.reason === "over budget");
}

function untrimmable(d: TurnDecision) {
  const { provider, model } = d.routing.model;
  const dropped = d.context.excluded.filter((e) => e.reason === "over budget").length;
  return failure(
    "context_window_exceeded",
    `context window exceeded: the conversation does not fit the window of '${provider}/${model}' ` +
      `without dropping ${dropped} earlier item(s), and truncation is 'disabled'; ` +
      "send truncation: 'auto' to drop the oldest items instead",
    { path: "truncation", provider, model },
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
  for (;;) {
    if (t.signal.aborted) return { kind: "superseded" };
    const provided = catalogInput(t.rc);
    const routing = t.probe.routing();
    const decided = decideTurn(
      conversationDecisionInput(turn, { ...provided, catalog: tried.usable(provided.catalog) }),
    );
    routing.end(decided);
    if (!decided.ok) return await failTurn(t, tried.noCandidate(decided.failure));
    const d = decided.value;
    await noteTrace(t, decisionEvents(baseScope(t), d));
    if (turn.trimming === false && trimmed(d)) return await failTurn(t, untrimmable(d));
    const approval = preCallApproval({
      approval_id: t.deps.newId(),
      model: d.routing.model,
      // A path-less tool result is the client's own tool output, not a workspace file.
      disclosure_paths: d.disclosure_paths.filter((p) => !turn.madeUpPaths.has(p)),
      rule: d.routing.rule,
      estimate: d.estimate,
      cost_limit_approved: false,
    });
    if (approval !== null) return await failTurn(t, refusal(d, approval));
    const tools = offered(turn, d);
    const sent = messagesFor(t, turn, d);
    const refused = unhonoured(t, turn, d, tools, sent.messages);
    if (refused !== null) return await failTurn(t, refused);
    t.timing.lap("decision");
    // The budget admits the call before anything of it starts (decisions.md §13).
    const admitted = await admitModelCall(t, d, turn.maxOutputTokens);
    t.timing.lap("budget");
    if (!admitted.ok) return await failTurn(t, admitted.failure);
    if (admitted.limitNote !== null) {
      await noteTrace(t, [outputLimitEvent(t, d, admitted.limitNote)]);
    }
    if (sent.omitted.length > 0) {
      await noteTrace(t, omittedEvents(decisionScope(baseScope(t), d), sent.omitted, sent.why));
    }
    t.sink.begin();
    let reply: ModelReply;
    try {
      reply = await invoke(t, turn, d, tools, sent.messages, admitted.outputLimit);
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
    ...(usage.cache_read_tokens === undefined ? {} : { cacheReadTokens: usage.cache_read_tokens }),
    ...(usage.cache_write_tokens === undefined
      ? {}
      : { cacheWriteTokens: usage.cache_write_tokens }),
  };
  (t.records.conversations ??= []).push({
    userId: t.session.user_id,
    digest: turn.answeredDigest(answer),
    sessionId: t.session.id,
    now: t.deps.now(),
  });
  turn.recordAnswer?.(answer, {
    turnId: t.turnId,
    sessionId: t.session.id,
    userId: t.session.user_id,
    now: t.deps.now(),
  }, t.records);
  if (!(await finishTurn(t, "idle"))) return { kind: "superseded" };
  return { kind: "answer", answer };
}

/**
 * Claims the session's run, records what the request added to the
 * conversation (its new user message, or the results it brings), and runs the
 * one model call. While another turn of the session runs, the request goes on
 * in the session `fork` makes (once); without one it is a 409 `run_in_flight`.
 */
export async function startConversationTurn(
  call: TurnCall,
  turn: ConversationTurn,
  fork?: () => Promise<TurnCall>,
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
  for (const name of turn.notOffered ?? []) {
    // A hosted tool of the client's API: nothing here can run it, so no model is offered it.
    records.trace.push(
      traceEvent(scope, "tool_call", toolCallTracePayload(`not_offered:${name}`, name, "denied")),
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
  await entered(call.timing);
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
    ...claimAuth(call.auth),
  }).then((answer) => checkedBy(call.auth, answer));
  call.timing.lap("claim");
  if (claim.kind === "in_flight") {
    if (fork !== undefined) return await startConversationTurn(await fork(), turn);
    throw ServiceError.of(
      "run_in_flight",
      "run in flight: a turn of this session is already running",
    );
  }
  deps.telemetry.runClaimed("execute", claim.superseded !== null);
  try {
    return await respondWithTurn({
      deps,
      sessionId: call.session.id,
      runId,
      turnId,
      seq: claim.run.supersede_seq,
      stream: call.stream,
      surface: call.surface,
      timing: call.timing,
      run: (live) => oneCall({ ...base, ...live, budgeted: claim.budgeted }, turn),
    });
  } catch (error) {
    // The turn is recorded (a refusal, every candidate failed): its answer names it.
    if (!(error instanceof ServiceError)) throw error;
    throw new RecordedTurnFailure(error.failure, session.id, turnId);
  }
}
