/**
 * OpenAI's API on Switchyard (decisions.md §12): `POST /v1/chat/completions`
 * runs one turn; `GET /v1/models` and `GET /v1/models/{id}` list what the
 * `model` field takes. Errors come in OpenAI's shape with OpenAI's status;
 * `GET /v1/models` answers (errors included) in Anthropic's shapes when asked
 * by an Anthropic client (an `anthropic-version` header).
 */
import { ServiceError } from "../../core/errors.ts";
import { listingTimeoutMs } from "../../providers/listing.ts";
import { parseCredentialHeaders } from "../../providers/credentials.ts";
import { catalogForRequest } from "../../providers/request_catalog.ts";
import { listPolicyNames } from "../../store/policies.ts";
import { runCompatTurn } from "../../surfaces/compat_turn.ts";
import { openAiError, openAiSurface } from "../../surfaces/openai_answer.ts";
import { openAiChatRequest } from "../../surfaces/openai_request.ts";
import { readJsonObject } from "../body.ts";
import type { Endpoint, RequestContext } from "../context.ts";
import { jsonResponse } from "../error_response.ts";

export const chatCompletions: Endpoint = {
  auth: "key_or_token",
  readChecksKey: true,
  renderError: openAiError,
  async handle(ctx) {
    const body = await readJsonObject(ctx.request, ctx.deps.config.limits.maxRequestBodyBytes);
    const request = openAiChatRequest(body);
    const created = Math.floor(ctx.deps.now().getTime() / 1000);
    return await runCompatTurn(
      ctx,
      request,
      (session) =>
        openAiSurface({ sessionId: session.id, created, includeUsage: request.includeUsage }),
    );
  },
};

interface ListedModel {
  id: string;
  display_name: string;
}

/** `switchyard`, each named policy, then the catalog's models for the request's credentials. */
async function listed(ctx: RequestContext): Promise<ListedModel[]> {
  const [names, rc] = await Promise.all([
    listPolicyNames(ctx.deps.db, ctx.principal.userId),
    catalogForRequest(ctx.deps.registry, parseCredentialHeaders(ctx.request.headers), {
      cache: ctx.deps.listingCache,
      deadlineMs: listingTimeoutMs(ctx.request.headers.get("x-router-timeout-ms")),
    }),
  ]);
  return [
    { id: "switchyard", display_name: "Switchyard (your default policy)" },
    ...names.map((n) => ({
      id: `switchyard/${n.name}`,
      display_name: `Switchyard policy '${n.name}' (version ${n.version})`,
    })),
    ...rc.listing.models.map((m) => ({
      id: `${m.provider}/${m.model}`,
      display_name: m.display_name ?? m.model,
    })),
  ];
}

const EPOCH = "1970-01-01T00:00:00Z";

function openAiModel(m: ListedModel) {
  return { id: m.id, object: "model", created: 0, owned_by: m.id.split("/")[0] };
}

function anthropicModel(m: ListedModel) {
  return { type: "model", id: m.id, display_name: m.display_name, created_at: EPOCH };
}

const asAnthropic = (ctx: RequestContext) => ctx.request.headers.has("anthropic-version");

/** Anthropic's list paging: `limit` 1–1000 (default 20), then `after_id` or `before_id`. */
interface Paging {
  limit: number;
  afterId: string | null;
  beforeId: string | null;
}

const PAGE_LIMIT = { min: 1, max: 1000, default: 20 };

function anthropicPaging(query: URLSearchParams): Paging {
  const raw = query.get("limit");
  const limit = raw === null ? PAGE_LIMIT.default : Number(raw);
  if (
    raw !== null && (!/^[0-9]+$/.test(raw) || limit < PAGE_LIMIT.min || limit > PAGE_LIMIT.max)
  ) {
    throw ServiceError.of(
      "invalid_request",
      `invalid limit: expected an integer from ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max}`,
      { path: "limit", minimum: PAGE_LIMIT.min, maximum: PAGE_LIMIT.max },
    );
  }
  const afterId = query.get("after_id");
  const beforeId = query.get("before_id");
  if (afterId !== null && beforeId !== null) {
    throw ServiceError.of(
      "invalid_request",
      "invalid paging: give after_id or before_id, not both",
      { path: "before_id" },
    );
  }
  return { limit, afterId, beforeId };
}

/**
 * One page of the list: the `limit` models after `after_id`, or the `limit`
 * models just before `before_id`; `has_more` says whether more lie beyond
 * the page in the direction it was asked for (as Anthropic's lists do).
 */
function pageOf(models: ListedModel[], p: Paging): { models: ListedModel[]; hasMore: boolean } {
  const cursor = p.beforeId ?? p.afterId;
  const at = cursor === null ? -1 : models.findIndex((m) => m.id === cursor);
  if (cursor !== null && at < 0) {
    const field = p.beforeId === null ? "after_id" : "before_id";
    throw ServiceError.of(
      "invalid_request",
      `invalid ${field}: no model '${cursor}' in the list; GET /v1/models lists them`,
      { path: field },
    );
  }
  if (p.beforeId !== null) {
    const start = Math.max(0, at - p.limit);
    return { models: models.slice(start, at), hasMore: start > 0 };
  }
  const start = at + 1;
  return {
    models: models.slice(start, start + p.limit),
    hasMore: start + p.limit < models.length,
  };
}

export const listCompatModels: Endpoint = {
  auth: "key_or_token",
  apiKeyHeader: true,
  // Errors in Anthropic's shape with `anthropic-version`, else OpenAI's (http/handler.ts).
  async handle(ctx) {
    if (!asAnthropic(ctx)) {
      return jsonResponse({ object: "list", data: (await listed(ctx)).map(openAiModel) });
    }
    const paging = anthropicPaging(ctx.url.searchParams);
    const page = pageOf(await listed(ctx), paging);
    return jsonResponse({
      data: page.models.map(anthropicModel),
      has_more: page.hasMore,
      first_id: page.models[0]?.id ?? null,
      last_id: page.models.at(-1)?.id ?? null,
    });
  },
};

export const getCompatModel: Endpoint = {
  auth: "key_or_token",
  apiKeyHeader: true,
  // Errors in Anthropic's shape with `anthropic-version`, else OpenAI's (http/handler.ts).
  async handle(ctx) {
    const raw = ctx.params.provider === undefined
      ? ctx.params.model_id
      : `${ctx.params.provider}/${ctx.params.model_id}`;
    const id = decodeURIComponent(raw ?? "");
    const found = (await listed(ctx)).find((m) => m.id === id);
    if (found === undefined) {
      throw ServiceError.of(
        "model_not_found",
        `model not found: '${id}'; GET /v1/models lists them`,
      );
    }
    return jsonResponse(asAnthropic(ctx) ? anthropicModel(found) : openAiModel(found));
  },
};
