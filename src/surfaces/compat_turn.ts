/**
 * What the OpenAI- and Anthropic-compatible surfaces share once each has
 * translated its request (decisions.md §12): the `model` field to a named
 * policy or an explicit model, the conversation to its session, and the turn
 * the native engine runs. Each surface only translates and frames.
 */
import { ServiceError } from "../core/errors.ts";
import { constrainedPathMatcher } from "../core/privacy.ts";
import { splitConversation } from "../engine/conversation_split.ts";
import { type ConversationTurn, startConversationTurn } from "../engine/conversation_turn.ts";
import { engineDeps } from "../engine/engine_deps.ts";
import type { TurnSurface } from "../engine/respond.ts";
import type { ModelAnswer } from "../engine/turn_context.ts";
import type { RequestContext } from "../http/context.ts";
import { acceptTurns } from "../http/shutdown_gate.ts";
import { parseTurnRequest } from "../http/turn_request.ts";
import type { ChatMessage, SamplingOptions, ToolChoice, ToolSpec } from "../providers/types.ts";
import { readCompatRequest } from "../store/conversation_turns.ts";
import { listPolicyNames } from "../store/policies.ts";
import { insertSession, type SessionRow } from "../store/sessions.ts";
import { conversationDigest, conversationKeyDigest } from "./conversation_digest.ts";

export type SurfaceName = "openai" | "anthropic" | "responses";

/** A compatible request, translated: everything the turn needs, in neutral terms. */
export interface CompatRequest {
  surface: SurfaceName;
  model: string;
  system: string | null;
  messages: ChatMessage[];
  tools: ToolSpec[];
  toolChoice?: ToolChoice;
  sampling?: SamplingOptions;
  maxOutputTokens?: number;
  stream: boolean;
  /**
   * The conversation key the client sent (OpenAI's `prompt_cache_key`): one
   * session per user and key (decisions.md §12 "Which session").
   */
  conversationKey?: string;
  /** The session the request continues whatever its headers say (a previous response's). */
  sessionId?: string;
  /** False: a turn whose context would be trimmed to fit is refused instead. */
  trimming?: boolean;
  /** The client's tools that are never offered to a model, for the trace. */
  notOffered?: readonly string[];
  /** What the surface records with the turn's answer (a stored response), in the same write. */
  recordAnswer?: ConversationTurn["recordAnswer"];
  /** The surface's own name of a neutral request option, for a 400 that names it. */
  fieldOf(option: string): string;
}

/** What the `model` field asks for. */
export type ModelChoice =
  | { kind: "policy"; name: string; version: number | null }
  | { kind: "model"; ref: string };

const POLICY_MODEL = /^switchyard(?:\/([a-z0-9][a-z0-9_.-]{0,63})(?:@([1-9][0-9]{0,8}))?)?$/;

/** `switchyard`, `switchyard/<name>`, `switchyard/<name>@<n>`, or a `provider/model` reference. */
export function modelChoice(model: string): ModelChoice | null {
  const named = POLICY_MODEL.exec(model);
  if (named !== null) {
    return {
      kind: "policy",
      name: named[1] ?? "default",
      version: named[2] === undefined ? null : Number(named[2]),
    };
  }
  if (model.startsWith("switchyard/")) return null;
  return model.includes("/") ? { kind: "model", ref: model } : null;
}

async function unknownModel(ctx: RequestContext, model: string): Promise<never> {
  const names = await listPolicyNames(ctx.deps.db, ctx.principal.userId);
  const stored = names.length === 0
    ? "you have no named policies yet"
    : `your policies: ${names.map((n) => `switchyard/${n.name}`).join(", ")}`;
  throw ServiceError.of(
    "model_not_found",
    `model not found: '${model}'; use 'switchyard' (your policy named 'default'), ` +
      `'switchyard/<name>[@<version>]' or a 'provider/model' of GET /v1/models (${stored}); ` +
      "store a policy with PUT /api/v1/policies/<name>",
  );
}

const TITLE_LENGTH = 80;

/**
 * Coding agents put their own notes into the user's message, wrapped in
 * `<system-reminder>` tags (Claude Code does): that text goes to the model as
 * sent, but it is not the user's own, so classification and the session's
 * title leave it out (decisions.md §4: keywords come from the user's text).
 */
const REMINDER = /<system-reminder>[\s\S]*?<\/system-reminder>/g;

export function ownText(text: string): string {
  const own = text.replace(REMINDER, "").trim();
  return own === "" ? text : own;
}

function titleOf(messages: readonly ChatMessage[]): string {
  const first = messages.find((m) => m.role === "user")?.content ?? "";
  const line = ownText(first).replace(/\s+/g, " ").trim();
  const points = [...line];
  return points.length <= TITLE_LENGTH ? line : `${points.slice(0, TITLE_LENGTH - 1).join("")}…`;
}

/** What the request's headers and model field ask for, read in one round trip. */
async function readRequest(ctx: RequestContext, request: CompatRequest) {
  const choice = modelChoice(request.model);
  if (choice === null) return await unknownModel(ctx, request.model);
  const named = request.sessionId ?? ctx.request.headers.get("x-router-session-id");
  if (
    named !== null && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(named)
  ) {
    throw ServiceError.of("session_not_found", `session not found: '${named}'`);
  }
  const last = request.messages.findLastIndex((m) => m.role === "assistant");
  const reading = await readCompatRequest(ctx.deps.db, {
    userId: ctx.principal.userId,
    policy: choice.kind === "policy" ? choice.name : "default",
    version: choice.kind === "policy" ? choice.version : null,
    sessionId: named?.toLowerCase() ?? null,
    // The conversation so far, as an earlier turn recorded it with its answer.
    digest: named !== null
      ? null
      : request.conversationKey !== undefined
      ? conversationKeyDigest(request.conversationKey)
      : last < 0
      ? null
      : conversationDigest(request.system, request.messages.slice(0, last + 1)),
  });
  if (choice.kind === "policy" && reading.policy === null) {
    return await unknownModel(ctx, request.model);
  }
  return {
    policy: reading.policy?.policy ?? {},
    explicit: choice.kind === "model" ? choice.ref : null,
    named,
    found: reading.session,
  };
}

/**
 * The session a request continues: the one `X-Router-Session-Id` names; else
 * the one whose recorded conversation equals this request's earlier messages;
 * else a new one.
 */
async function sessionFor(
  ctx: RequestContext,
  request: CompatRequest,
  named: string | null,
  found: SessionRow | null,
): Promise<SessionRow> {
  if (named !== null) {
    if (found === null || found.archived) {
      throw ServiceError.of("session_not_found", `session not found: '${named}'`);
    }
    if (found.key_id !== null) {
      throw ServiceError.of(
        "invalid_request",
        "invalid session: an encrypted session cannot be used through this API",
        { path: "X-Router-Session-Id" },
      );
    }
    return found;
  }
  if (found !== null && !found.archived && found.key_id === null) return found;
  return await insertSession(ctx.deps.db, {
    id: ctx.deps.newId(),
    userId: ctx.principal.userId,
    title: titleOf(request.messages),
    metadata: { surface: request.surface },
    now: ctx.deps.now(),
  });
}

/** The conversation as answered, so its next request finds this session. */
function answeredMessage(answer: ModelAnswer): ChatMessage {
  return {
    role: "assistant",
    content: answer.text,
    toolCalls: answer.toolCalls.map((c) => ({
      callId: c.callId,
      name: c.name,
      arguments: c.arguments,
    })),
  };
}

/**
 * Runs the request as one turn of its session. `surface` writes the answer;
 * it is given the session so its headers can name it.
 */
export async function runCompatTurn(
  ctx: RequestContext,
  request: CompatRequest,
  surface: (session: SessionRow) => TurnSurface,
): Promise<Response> {
  acceptTurns(ctx.deps);
  const { policy, explicit, named, found } = await readRequest(ctx, request);
  const prompt = request.messages.findLast((m) => m.role === "user");
  if (prompt === undefined) {
    throw ServiceError.of("invalid_request", "invalid messages: no user message to answer", {
      path: "messages",
    });
  }
  const parsed = parseTurnRequest({
    input: { text: prompt.content, ...(explicit === null ? {} : { explicit_model: explicit }) },
    policy,
  });
  if (!parsed.ok) throw new ServiceError(parsed.failure);
  const split = splitConversation(request.messages, constrainedPathMatcher(parsed.value.policy));
  if (split === null) throw new Error("a conversation with a user message did not split");
  const session = await sessionFor(ctx, request, named, found);
  const deps = engineDeps(ctx.deps);
  const classified = ownText(prompt.content);
  const turn: ConversationTurn = {
    request: parsed.value,
    system: request.system,
    ...(classified === prompt.content ? {} : { classificationText: classified }),
    split,
    tools: request.tools,
    ...(request.toolChoice === undefined ? {} : { toolChoice: request.toolChoice }),
    ...(request.sampling === undefined ? {} : { sampling: request.sampling }),
    ...(request.maxOutputTokens === undefined ? {} : { maxOutputTokens: request.maxOutputTokens }),
    fieldOf: request.fieldOf,
    answeredDigest: (answer) =>
      conversationDigest(request.system, [...request.messages, answeredMessage(answer)]),
    ...(request.conversationKey === undefined
      ? {}
      : { keyDigest: conversationKeyDigest(request.conversationKey) }),
    ...(request.trimming === false ? { trimming: false } : {}),
    ...(request.notOffered === undefined ? {} : { notOffered: request.notOffered }),
    ...(request.recordAnswer === undefined ? {} : { recordAnswer: request.recordAnswer }),
  };
  return await startConversationTurn({
    deps,
    session,
    headers: ctx.request.headers,
    stream: request.stream,
    surface: surface(session),
  }, turn);
}
