/**
 * Anthropic's Messages API on Switchyard (decisions.md §12): `POST
 * /v1/messages` runs one turn; `POST /v1/messages/count_tokens` counts its
 * input as routing estimates it. Errors come in Anthropic's shape with
 * Anthropic's status; `anthropic-version` and `anthropic-beta` change nothing.
 */
import { estimateRequestTokens } from "../../core/tokens.ts";
import { anthropicError, anthropicSurface } from "../../surfaces/anthropic_answer.ts";
import {
  anthropicConversation,
  anthropicMessagesRequest,
} from "../../surfaces/anthropic_request.ts";
import { assertKnownModel, runCompatTurn } from "../../surfaces/compat_turn.ts";
import { readJsonObject } from "../body.ts";
import type { Endpoint } from "../context.ts";
import { jsonResponse } from "../error_response.ts";

export const messages: Endpoint = {
  auth: "key_or_token",
  readChecksKey: true,
  apiKeyHeader: true,
  renderError: anthropicError,
  async handle(ctx) {
    const body = await readJsonObject(ctx.request, ctx.deps.config.limits.maxRequestBodyBytes);
    const request = anthropicMessagesRequest(body);
    return await runCompatTurn(
      ctx,
      request,
      (session) => anthropicSurface({ sessionId: session.id }),
    );
  },
};

export const countTokens: Endpoint = {
  auth: "key_or_token",
  apiKeyHeader: true,
  renderError: anthropicError,
  async handle(ctx) {
    const body = await readJsonObject(ctx.request, ctx.deps.config.limits.maxRequestBodyBytes);
    const { model, system, messages, tools } = anthropicConversation(body);
    // A model /v1/messages would answer 404 for is 404 here too.
    await assertKnownModel(ctx, model);
    // The estimate routing, prices and budgets use, of everything /v1/messages would send
    // (decisions.md §15): the same figure that request's `message_start` reports.
    const input = estimateRequestTokens({ system: system ?? "", tools, messages });
    return jsonResponse({ input_tokens: input });
  },
};
