/**
 * OpenAI's Responses API on Switchyard (decisions.md §14): `POST /v1/responses`
 * runs one turn (buffered or streamed); a stored response is read, deleted
 * and its input items listed by its owner only; `input_tokens` counts what a
 * request would send. Errors come in OpenAI's shape.
 */
import { ServiceError } from "../../core/errors.ts";
import { estimateRequestTokens } from "../../core/tokens.ts";
import {
  deleteResponse,
  findResponse,
  readReferences,
  type References,
} from "../../store/responses.ts";
import { type CompatRequest, runCompatTurn } from "../../surfaces/compat_turn.ts";
import { invalid } from "../../surfaces/request_fields.ts";
import {
  responseRecorder,
  responsesError,
  responsesSurface,
} from "../../surfaces/responses_answer.ts";
import {
  responsesReferences,
  type ResponsesRequest,
  responsesRequest,
} from "../../surfaces/responses_request.ts";
import { readJsonObject } from "../body.ts";
import type { Endpoint, RequestContext } from "../context.ts";
import { jsonResponse } from "../error_response.ts";

function responseNotFound(id: string, path?: string): ServiceError {
  return ServiceError.of(
    "not_found",
    `response not found: '${id}' (only responses you stored with store: true can be found)`,
    path === undefined ? undefined : { path },
  );
}

function responseNotFoundIn(refs: References, wanted: { previous: string | null }) {
  if (wanted.previous !== null && refs.previous === null) {
    throw responseNotFound(wanted.previous, "previous_response_id");
  }
}

/** The request translated, once what it refers to is read (input_tokens reads it alone). */
async function translated(ctx: RequestContext): Promise<ResponsesRequest> {
  const body = await readJsonObject(ctx.request, ctx.deps.config.limits.maxRequestBodyBytes);
  const wanted = responsesReferences(body);
  const refs = wanted.previous === null && wanted.itemIds.length === 0
    ? { previous: null, items: new Map() }
    : await readReferences(ctx.deps.db, { userId: ctx.principal.userId, ...wanted });
  responseNotFoundIn(refs, wanted);
  return responsesRequest(body, refs);
}

function withRecorder(request: ResponsesRequest, created: number) {
  const meta = {
    echo: request.echo,
    created,
    customTools: request.customTools,
    inputItems: request.inputItems,
  };
  return { request: { ...request, recordAnswer: responseRecorder(meta) }, meta };
}

export const createResponse: Endpoint = {
  auth: "key_or_token",
  readChecksKey: true,
  renderError: responsesError,
  async handle(ctx) {
    const body = await readJsonObject(ctx.request, ctx.deps.config.limits.maxRequestBodyBytes);
    const wanted = responsesReferences(body);
    const created = Math.floor(ctx.deps.now().getTime() / 1000);
    let meta: ReturnType<typeof withRecorder>["meta"] | null = null;
    const complete = (refs: References) => {
      responseNotFoundIn(refs, wanted);
      const made = withRecorder(responsesRequest(body, refs), created);
      meta = made.meta;
      return made.request;
    };
    // Without references the request is translated (and checked) before anything is read;
    // with them, its previous response and items are read with the rest of the request.
    const request: CompatRequest = wanted.previous === null && wanted.itemIds.length === 0
      ? complete({ previous: null, items: new Map() })
      : {
        ...pending(body),
        references: wanted,
        complete,
      };
    return await runCompatTurn(ctx, request, (session) => responsesSurface(meta!, session.id));
  },
};

/** A referencing request before its references are read: enough to find its policy. */
function pending(body: Record<string, unknown>): CompatRequest {
  if (typeof body.model !== "string" || body.model === "") throw invalid("model", "a model name");
  return {
    surface: "responses",
    model: body.model,
    system: null,
    messages: [],
    tools: [],
    stream: body.stream === true,
    ...(typeof body.prompt_cache_key === "string" && body.prompt_cache_key !== ""
      ? { conversationKey: body.prompt_cache_key }
      : {}),
    fieldOf: (option) => option,
  };
}

async function stored(ctx: RequestContext) {
  const id = ctx.params.response_id ?? "";
  const found = await findResponse(ctx.deps.db, ctx.principal.userId, id);
  if (found === null) throw responseNotFound(id);
  return found;
}

export const getResponse: Endpoint = {
  auth: "key_or_token",
  renderError: responsesError,
  async handle(ctx) {
    if (ctx.url.searchParams.get("stream") === "true") {
      throw ServiceError.of(
        "invalid_request",
        'unsupported parameter: "stream" is not supported by this service; a stored response ' +
          "is complete: leave it out",
        { path: "stream", unsupported: true },
      );
    }
    return jsonResponse((await stored(ctx)).response);
  },
};

export const removeResponse: Endpoint = {
  auth: "key_or_token",
  renderError: responsesError,
  async handle(ctx) {
    const id = ctx.params.response_id ?? "";
    if (!(await deleteResponse(ctx.deps.db, ctx.principal.userId, id))) {
      throw responseNotFound(id);
    }
    return jsonResponse({ id, object: "response", deleted: true });
  },
};

function limitOf(ctx: RequestContext): number {
  const raw = ctx.url.searchParams.get("limit");
  if (raw === null) return 20;
  const n = Number(raw);
  if (!/^[0-9]+$/.test(raw) || n < 1 || n > 100) throw invalid("limit", "an integer from 1 to 100");
  return n;
}

/** A stored response's own input items, OpenAI's cursor list (`order` desc by default). */
export const listInputItems: Endpoint = {
  auth: "key_or_token",
  renderError: responsesError,
  async handle(ctx) {
    const limit = limitOf(ctx);
    const order = ctx.url.searchParams.get("order") ?? "desc";
    if (order !== "asc" && order !== "desc") throw invalid("order", '"asc" or "desc"');
    const after = ctx.url.searchParams.get("after");
    const found = await stored(ctx);
    const ordered = order === "asc" ? found.input_items : [...found.input_items].reverse();
    const from = after === null ? 0 : ordered.findIndex((i) => i.id === after) + 1;
    if (after !== null && from === 0) throw invalid("after", "the id of an item of this list");
    const data = ordered.slice(from, from + limit);
    return jsonResponse({
      object: "list",
      data,
      first_id: data[0]?.id ?? null,
      last_id: data.at(-1)?.id ?? null,
      has_more: from + limit < ordered.length,
    });
  },
};

export const countInputTokens: Endpoint = {
  auth: "key_or_token",
  renderError: responsesError,
  async handle(ctx) {
    const request = await translated(ctx);
    return jsonResponse({
      object: "response.input_tokens",
      // The estimate routing, prices and budgets use, of everything the request would send (§15).
      input_tokens: estimateRequestTokens({
        system: request.system ?? "",
        tools: request.tools,
        messages: request.messages,
      }),
    });
  },
};
