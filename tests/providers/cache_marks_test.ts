/**
 * Where an Anthropic request's cache breakpoints go (decisions.md §15): the
 * client's own marks as sent (never more than four), else the service's two
 * when asked to place them, else none; and what the request body carries.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { anthropicMessagesBody } from "../../src/providers/anthropic_messages_request.ts";
import { cacheBreakpoints, MAX_CACHE_BREAKPOINTS } from "../../src/providers/cache_marks.ts";
import type { ChatMessage, CompletionRequest, ToolSpec } from "../../src/providers/types.ts";

const tool = (name: string, cache?: ToolSpec["cache"]): ToolSpec => ({
  name,
  description: name,
  parameters: { type: "object" },
  ...(cache === undefined ? {} : { cache }),
});
const user = (content: string, cache?: ChatMessage["cache"]): ChatMessage => ({
  role: "user",
  content,
  ...(cache === undefined ? {} : { cache }),
});

function request(over: Partial<CompletionRequest>): CompletionRequest {
  return {
    model: "claude-sonnet-4-5",
    system: "Rules.",
    messages: [user("a"), { role: "assistant", content: "b" }, user("c")],
    tools: [tool("read"), tool("edit")],
    stream: false,
    ...over,
  };
}

const shape = (r: CompletionRequest) => {
  const b = cacheBreakpoints(r);
  return {
    tools: [...b.tools.keys()],
    system: b.system !== undefined,
    messages: [...b.messages.keys()],
  };
};

describe("cache breakpoints", () => {
  test("nothing asked, nothing marked: none", () => {
    assert.deepEqual(shape(request({})), {
      tools: [],
      system: false,
      messages: [],
    });
    assert.deepEqual(shape(request({ caching: { placeMarks: false } })), {
      tools: [],
      system: false,
      messages: [],
    });
  });

  test("placed: on the system prompt (covering the tools) and on the last message", () => {
    assert.deepEqual(shape(request({ caching: { placeMarks: true } })), {
      tools: [],
      system: true,
      messages: [2],
    });
  });

  test("placed without a system prompt: on the last tool; without tools either: the last message only", () => {
    assert.deepEqual(
      shape(request({ system: "", caching: { placeMarks: true } })),
      {
        tools: [1],
        system: false,
        messages: [2],
      },
    );
    assert.deepEqual(
      shape(
        request({
          system: undefined,
          tools: [],
          caching: { placeMarks: true },
        }),
      ),
      {
        tools: [],
        system: false,
        messages: [2],
      },
    );
  });

  test("a client's marks win: kept where they are, none placed", () => {
    const r = request({
      tools: [tool("read", {}), tool("edit")],
      messages: [
        user("a", { ttl: "1h" }),
        { role: "assistant", content: "b" },
        user("c"),
      ],
      caching: { placeMarks: true },
    });
    assert.deepEqual(shape(r), { tools: [0], system: false, messages: [0] });
    assert.deepEqual(cacheBreakpoints(r).messages.get(0), { ttl: "1h" });
  });

  test("more than four client marks: the earliest go, tools' first", () => {
    const r = request({
      systemCache: {},
      tools: [tool("read", {}), tool("edit", {})],
      messages: [
        user("a", {}),
        { role: "assistant", content: "b", cache: {} },
        user("c", {}),
      ],
    });
    const b = shape(r);
    assert.deepEqual(b, { tools: [], system: true, messages: [0, 1, 2] });
    assert.equal(
      b.tools.length + (b.system ? 1 : 0) + b.messages.length,
      MAX_CACHE_BREAKPOINTS,
    );
  });

  test("the body: a marked system prompt is a block; a marked string message becomes one text block", () => {
    const body = anthropicMessagesBody(
      request({ caching: { placeMarks: true } }),
      "anthropic",
    );
    assert.deepEqual(body.system, [{
      type: "text",
      text: "Rules.",
      cache_control: { type: "ephemeral" },
    }]);
    const messages = body.messages as { role: string; content: unknown }[];
    assert.deepEqual(messages[0].content, "a");
    assert.deepEqual(messages[2].content, [{
      type: "text",
      text: "c",
      cache_control: { type: "ephemeral" },
    }]);
    assert.deepEqual(
      (body.tools as Record<string, unknown>[]).map((t) => t.cache_control),
      [
        undefined,
        undefined,
      ],
    );
  });

  test("the body: a ttl goes as sent; an empty message carries no mark (no empty text block)", () => {
    const body = anthropicMessagesBody(
      request({
        messages: [user("a"), {
          role: "assistant",
          content: "",
          cache: { ttl: "1h" },
        }, user("c")],
      }),
      "anthropic",
    );
    const messages = body.messages as { content: unknown }[];
    assert.equal(messages[1].content, "");
    const marked = anthropicMessagesBody(
      request({ messages: [user("a", { ttl: "1h" })] }),
      "anthropic",
    );
    assert.deepEqual((marked.messages as { content: unknown }[])[0].content, [{
      type: "text",
      text: "a",
      cache_control: { type: "ephemeral", ttl: "1h" },
    }]);
  });
});
