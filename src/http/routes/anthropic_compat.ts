/**
 * Anthropic's Messages API on Switchyard (decisions.md §12): `POST
 * /v1/messages` runs one turn; `POST /v1/messages/count_tokens` counts its
 * input as routing estimates it. Errors come in Anthropic's shape with
 * Anthropic's status; `anthropic-version` and `anthropic-beta` change nothing.
 */
import { estimateTokens } from "../../core/tokens.ts";
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
    // The estimate routing and trimming use (decisions.md §6), over what the request carries.
    const parts = [
      system ?? "",
      ...messages.map((m) =>
        m.role === "assistant"
          ? [
            m.content,
            ...(m.toolCalls ?? []).map((c) => `${c.name} ${JSON.stringify(c.arguments)}`),
          ]
            .join("\n")
          : m.content
      ),
      ...tools.map((t) => JSON.stringify(t)),
    ];
    const input = parts.reduce((sum, p) => sum + estimateTokens(p), 0);
    return jsonResponse({ input_tokens: input });
  },
};
