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
import { matchingKey, noteKeyUse } from "../http/auth.ts";
import { KeyRefused, type RequestContext } from "../http/context.ts";
import type { UsableKey } from "../store/api_keys.ts";
import { acceptTurns } from "../http/shutdown_gate.ts";
import { parseTurnRequest } from "../http/turn_request.ts";
import type {
  CacheMark,
  ChatMessage,
  SamplingOptions,
  ToolChoice,
  ToolSpec,
} from "../providers/types.ts";
import {
  conversationKeyDigest,
  insertKeyedSession,
  readCompatRequest,
} from "../store/conversation_turns.ts";
import { findPolicy, listPolicyNames } from "../store/policies.ts";
import type { References } from "../store/responses.ts";
import { insertSession, type SessionRow } from "../store/sessions.ts";
import { conversationDigest } from "./conversation_digest.ts";
import { equivalentBody, madeUpPaths, ownText } from "./equivalent_body.ts";

export type SurfaceName = "openai" | "anthropic" | "responses";

/** A compatible request, translated: everything the turn needs, in neutral terms. */
export interface CompatRequest {
  surface: SurfaceName;
  model: string;
  system: string | null;
  /** The client's cache breakpoint after its system prompt (Anthropic's `cache_control`). */
  systemCache?: CacheMark;
  /** The client's own prompt-cache key (OpenAI's `prompt_cache_key`). */
  cacheKey?: string;
  messages: ChatMessage[];
  tools: ToolSpec[];
  toolChoice?: ToolChoice;
  sampling?: SamplingOptions;
  maxOutputTokens?: number;
  stream: boolean;
  /**
   * The client's own name of its conversation (OpenAI's `prompt_cache_key`, the
   * session part of Claude Code's `metadata.user_id`): it names the session
   * (decisions.md §12 "Which session"); without it the digest rule applies.
   */
  conversationKey?: string;
  /**
   * What a Responses request refers to: read with the request, its previous
   * response's session continued, and handed to `complete`.
   */
  references?: { previous: string | null; itemIds: readonly string[] };
  /** The request once its references are read (the chain's items before its own). */
  complete?(references: References): CompatRequest;
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

/**
 * Answers 404 `model_not_found` for a `model` field `/v1/messages` would not
 * run (an unknown name or named policy), as an endpoint that runs no turn
 * (`count_tokens`) must too.
 */
export async function assertKnownModel(ctx: RequestContext, model: string): Promise<void> {
  const choice = modelChoice(model);
  if (choice === null) return await unknownModel(ctx, model);
  if (choice.kind !== "policy") return;
  const found = await findPolicy(ctx.deps.db, ctx.principal.userId, choice.name, choice.version);
  if (found === null) return await unknownModel(ctx, model);
}

const TITLE_LENGTH = 80;

export { ownText } from "./equivalent_body.ts";

/**
 * A user message that is wholly one tagged block is the client's context, not the user's words
 * (Codex sends its `<environment_context>` and `<user_instructions>` so): the title skips it.
 */
const CLIENT_CONTEXT = /^<([A-Za-z_][\w-]*)>[\s\S]*<\/\1>$/;

function titleOf(messages: readonly ChatMessage[]): string {
  const texts = messages.filter((m) => m.role === "user").map((m) =>
    ownText(m.content ?? "").trim()
  );
  const first = texts.find((t) => !CLIENT_CONTEXT.test(t)) ?? texts[0] ?? "";
  const line = first.replace(/\s+/g, " ").trim();
  const points = [...line];
  return points.length <= TITLE_LENGTH ? line : `${points.slice(0, TITLE_LENGTH - 1).join("")}…`;
}

/**
 * The API key not read before the request (`principal.uncheckedKey`), checked
 * against the user's usable keys its read brought, as sign-in checks a key
 * (KeyRefused when none matches), its use recorded as authentication records it.
 */
async function checkKey(ctx: RequestContext, keys: readonly UsableKey[] | undefined) {
  const check = ctx.principal.uncheckedKey;
  if (check === undefined) return;
  check.checked = true;
  const found = matchingKey(keys ?? [], check.digest, ctx.deps.now().getTime());
  if (found === null) throw new KeyRefused();
  await noteKeyUse(ctx.deps, found);
}

/**
 * What the request's headers and model field ask for, read in one round trip
 * (with the user's API keys, for a key not read before).
 */
async function readRequest(ctx: RequestContext, request: CompatRequest) {
  const choice = modelChoice(request.model);
  if (choice === null) return await unknownModel(ctx, request.model);
  const header = ctx.request.headers.get("x-router-session-id");
  // A previous response names its session (read below): neither key nor digest is asked.
  const continues = request.references?.previous != null;
  const named = continues ? null : header;
  if (
    named !== null && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(named)
  ) {
    throw ServiceError.of("session_not_found", `session not found: '${named}'`);
  }
  const last = request.messages.findLastIndex((m) => m.role === "assistant");
  // Claude Code 2.1.86 and later also send their session id as a header.
  const key = request.conversationKey ??
    (request.surface === "anthropic"
      ? ctx.request.headers.get("x-claude-code-session-id") || undefined
      : undefined);
  const keyDigest = named === null && !continues && key !== undefined
    ? conversationKeyDigest(key)
    : null;
  const reading = await readCompatRequest(ctx.deps.db, {
    userId: ctx.principal.userId,
    policy: choice.kind === "policy" ? choice.name : "default",
    version: choice.kind === "policy" ? choice.version : null,
    sessionId: named?.toLowerCase() ?? null,
    keyDigest,
    // The conversation so far, as an earlier turn recorded it with its answer.
    digest: named !== null || continues || keyDigest !== null || last < 0
      ? null
      : conversationDigest(request.system, request.messages.slice(0, last + 1)),
    ...(request.references === undefined ? {} : { references: request.references }),
    ...(ctx.principal.uncheckedKey === undefined ? {} : { withKeys: true }),
  });
  await checkKey(ctx, reading.keys);
  if (choice.kind === "policy" && reading.policy === null) {
    return await unknownModel(ctx, request.model);
  }
  return {
    policy: reading.policy?.policy ?? {},
    explicit: choice.kind === "model" ? choice.ref : null,
    named: continues ? reading.references?.previous?.session_id ?? null : named,
    keyDigest,
    found: reading.session,
    references: reading.references,
  };
}

/**
 * The session a request continues: the one `X-Router-Session-Id` names; else
 * the one the client's conversation key names (a new one, named by the key,
 * when it names none yet); else, without a key, the one whose recorded
 * conversation equals this request's earlier messages; else a new one.
 */
async function sessionFor(
  ctx: RequestContext,
  request: CompatRequest,
  named: string | null,
  keyDigest: string | null,
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
  if (keyDigest !== null) {
    return await insertKeyedSession(ctx.deps.db, {
      id: ctx.deps.newId(),
      userId: ctx.principal.userId,
      title: titleOf(request.messages),
      metadata: { surface: request.surface },
      keyDigest,
      now: ctx.deps.now(),
    });
  }
  return await insertSession(ctx.deps.db, {
    id: ctx.deps.newId(),
    userId: ctx.principal.userId,
    title: titleOf(request.messages),
    metadata: { surface: request.surface },
    now: ctx.deps.now(),
  });
}

/**
 * A new session for a request whose session has a turn in flight: these APIs
 * have no such state, so the request goes on beside it (decisions.md §12). The
 * key and the digest keep naming the original; the fork's own answer is
 * recorded by digest, so a conversation continuing that answer finds the fork.
 */
async function forkOf(
  ctx: RequestContext,
  request: CompatRequest,
  original: SessionRow,
): Promise<SessionRow> {
  return await insertSession(ctx.deps.db, {
    id: ctx.deps.newId(),
    userId: ctx.principal.userId,
    title: original.title ?? titleOf(request.messages),
    metadata: { surface: request.surface, forked_from: original.id },
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
 * The turn a translated request asks for, decided on the native body it
 * equals (decisions.md §12), so its decision is that body's native preview.
 * Pure but for hashing; `policy` is the named policy's stored body.
 */
export function conversationTurnOf(
  request: CompatRequest,
  policy: unknown,
  explicit: string | null,
): ConversationTurn {
  const body = equivalentBody(request.messages, explicit);
  if (body === null) {
    throw ServiceError.of("invalid_request", "invalid messages: no user message to answer", {
      path: "messages",
    });
  }
  const parsed = parseTurnRequest({ ...body, policy });
  if (!parsed.ok) throw new ServiceError(parsed.failure);
  const split = splitConversation(request.messages, constrainedPathMatcher(parsed.value.policy));
  if (split === null) throw new Error("a conversation with a user message did not split");
  return {
    request: parsed.value,
    system: request.system,
    ...(request.systemCache === undefined ? {} : { systemCache: request.systemCache }),
    ...(request.cacheKey === undefined ? {} : { cacheKey: request.cacheKey }),
    split,
    madeUpPaths: madeUpPaths(body),
    tools: request.tools,
    ...(request.toolChoice === undefined ? {} : { toolChoice: request.toolChoice }),
    ...(request.sampling === undefined ? {} : { sampling: request.sampling }),
    ...(request.maxOutputTokens === undefined ? {} : { maxOutputTokens: request.maxOutputTokens }),
    fieldOf: request.fieldOf,
    answeredDigest: (answer) =>
      conversationDigest(request.system, [...request.messages, answeredMessage(answer)]),
    ...(request.trimming === false ? { trimming: false } : {}),
    ...(request.notOffered === undefined ? {} : { notOffered: request.notOffered }),
    ...(request.recordAnswer === undefined ? {} : { recordAnswer: request.recordAnswer }),
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
  ctx.timing.lap("parse");
  const read = await readRequest(ctx, request);
  ctx.timing.lap("session");
  const { policy, explicit, named, keyDigest, found } = read;
  if (request.complete !== undefined) {
    request = request.complete(read.references ?? { previous: null, items: new Map() });
  }
  const turn = conversationTurnOf(request, policy, explicit);
  ctx.timing.lap("parse");
  const session = await sessionFor(ctx, request, named, keyDigest, found);
  ctx.timing.lap("session");
  const deps = engineDeps(ctx.deps);
  const callIn = (session: SessionRow) => ({
    deps,
    session,
    headers: ctx.request.headers,
    stream: request.stream,
    surface: surface(session),
    timing: ctx.timing,
  });
  return await startConversationTurn(
    callIn(session),
    turn,
    async () => callIn(await forkOf(ctx, request, session)),
  );
}
