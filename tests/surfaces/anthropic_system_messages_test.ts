/**
 * System messages inside an Anthropic conversation, as Claude Code sends
 * them between turns: their text joins the system prompt, in order, and the
 * conversation keeps only its user and assistant turns.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { anthropicMessagesRequest } from "../../src/surfaces/anthropic_request.ts";
import { ServiceError } from "../../src/core/errors.ts";

describe("system messages in an Anthropic conversation", () => {
  test("join the system prompt after the request's system, in order", () => {
    const request = anthropicMessagesRequest({
      model: "switchyard",
      max_tokens: 100,
      system: [{ type: "text", text: "You are Claude Code." }],
      messages: [
        { role: "user", content: [{ type: "text", text: "Plan the next release" }] },
        { role: "system", content: "Available agent types: general." },
        { role: "assistant", content: "A plan." },
        { role: "system", content: [{ type: "text", text: "Today is Friday." }] },
        { role: "user", content: "And then?" },
      ],
    });
    assert.equal(
      request.system,
      "You are Claude Code.\n\nAvailable agent types: general.\n\nToday is Friday.",
    );
    assert.deepEqual(request.messages.map((m) => [m.role, m.content]), [
      ["user", "Plan the next release"],
      ["assistant", "A plan."],
      ["user", "And then?"],
    ]);
  });

  test("are the whole system prompt when the request has none", () => {
    const request = anthropicMessagesRequest({
      model: "switchyard",
      max_tokens: 100,
      messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "hi" }],
    });
    assert.equal(request.system, "Be brief.");
  });

  test("another role is still refused, naming the roles taken", () => {
    assert.throws(
      () =>
        anthropicMessagesRequest({
          model: "switchyard",
          max_tokens: 100,
          messages: [{ role: "tool", content: "x" }],
        }),
      (e: unknown) => {
        assert.ok(e instanceof ServiceError);
        assert.equal(
          e.failure.message,
          "invalid messages[0].role: expected user, assistant or system",
        );
        return true;
      },
    );
  });
});
