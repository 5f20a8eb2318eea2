import { compiled, object } from "../ark.ts";
import { isUuid } from "../../core/credential_format.ts";
import { ServiceError } from "../../core/errors.ts";
import { sessionDetail, sessionSummary } from "../../core/session_view.ts";
import {
  deleteSession,
  findOwnedSession,
  insertSession,
  listMessages,
  listSessions,
  type SessionRow,
  updateSession,
} from "../../store/sessions.ts";
import { readJsonObject } from "../body.ts";
import { boundedText, MAX_SESSION_TEXT } from "../bounded_text.ts";
import type { Endpoint, RequestContext } from "../context.ts";
import { jsonResponse, jsonTextResponse } from "../error_response.ts";
import { validate } from "../validation.ts";

/** The path's session id, checked to be a UUID (400 `invalid_session_id` otherwise). */
export function sessionIdParam(ctx: RequestContext): string {
  const id = ctx.params.session_id;
  if (!isUuid(id)) {
    throw ServiceError.of("invalid_session_id", `invalid session id: expected a UUID, got "${id}"`);
  }
  return id.toLowerCase();
}

const notFound = () => ServiceError.of("session_not_found", "session not found");

/** The caller's live session: unknown, another user's and archived all answer 404 alike. */
export async function liveSession(ctx: RequestContext): Promise<SessionRow> {
  const id = sessionIdParam(ctx);
  const row = ctx.principal.session !== undefined
    ? ctx.principal.session
    : await findOwnedSession(ctx.deps.db, ctx.principal.userId, id);
  if (row === null || row.archived) throw notFound();
  return row;
}

/** A session's `title` or `scope`: at most 1,000 code points (decisions.md §2). */
const SessionText = boundedText(MAX_SESSION_TEXT);
/**
 * An encrypted session's `key_id`: every list returns it too, so it has the
 * same bound as the title (a key's name is far shorter).
 */
const KeyId = SessionText.narrow((text, ctx) =>
  text.length > 0 || ctx.reject({ expected: "a non-empty string" })
);

const CreateSession = compiled(object({
  title: SessionText,
  "scope?": SessionText,
  "key_id?": KeyId,
}));

export const createSession: Endpoint = {
  auth: "bearer",
  async handle(ctx) {
    const body = validate(
      CreateSession,
      await readJsonObject(ctx.request, ctx.deps.config.limits.maxRequestBodyBytes),
    );
    const row = await insertSession(ctx.deps.db, {
      id: ctx.deps.newId(),
      userId: ctx.principal.userId,
      title: body.title,
      scope: body.scope,
      keyId: body.key_id,
      now: ctx.deps.now(),
    });
    return jsonResponse({ session: sessionSummary(row) }, 201);
  },
};

export const listSessionsEndpoint: Endpoint = {
  auth: "bearer",
  async handle(ctx) {
    // The summaries come as JSON text, written by the store as `sessionSummary` shows them.
    const sessions = await listSessions(ctx.deps.db, ctx.principal.userId, {
      scope: ctx.url.searchParams.get("scope") ?? undefined,
      title: ctx.url.searchParams.get("title") ?? undefined,
    });
    return jsonTextResponse(`{"sessions":${sessions}}`);
  },
};

export const getSession: Endpoint = {
  auth: "bearer",
  async handle(ctx) {
    const row = await liveSession(ctx);
    const messages = await listMessages(ctx.deps.db, row.id);
    return jsonResponse({ session: sessionDetail(row, messages) });
  },
};

/** `scope` is not updatable (interface.md): like any unknown field, it is ignored here. */
const UpdateSession = compiled(object({
  "title?": SessionText,
  "archived?": "boolean",
}));

/** Partial update; an archived session accepts only the update that restores it. */
export const updateSessionEndpoint: Endpoint = {
  auth: "bearer",
  async handle(ctx) {
    const id = sessionIdParam(ctx);
    const patch = validate(
      UpdateSession,
      await readJsonObject(ctx.request, ctx.deps.config.limits.maxRequestBodyBytes),
    );
    const row = await updateSession(ctx.deps.db, ctx.principal.userId, id, {
      ...patch,
      now: ctx.deps.now(),
    });
    if (row === null) throw notFound();
    return jsonResponse({ session: sessionSummary(row) });
  },
};

export const deleteSessionEndpoint: Endpoint = {
  auth: "bearer",
  async handle(ctx) {
    const id = sessionIdParam(ctx);
    if (!(await deleteSession(ctx.deps.db, ctx.principal.userId, id))) throw notFound();
    return jsonResponse({ deleted: true });
  },
};
