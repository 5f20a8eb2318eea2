/**
 * Hostile shapes on the compatible surfaces: every object of a valid body,
 * at every depth, replaced by `[]` in turn is refused with 422 in the
 * surface's own error shape, naming its path (OpenAI's `param`; Anthropic's
 * message), before any model call. The table covers every compatible route
 * that takes a JSON body.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ROUTES } from "../../src/http/routes.ts";
import { formatPath } from "../../src/http/validation.ts";
import { appWithSession, call } from "../support/app.ts";

const TOOL_CALL = {
  id: "c1",
  type: "function",
  function: { name: "read_file", arguments: "{}" },
};

/** A Responses API body with an object at every place the API takes one. */
const RESPONSES_BODY = {
  model: "switchyard",
  input: [
    { role: "developer", content: [{ type: "input_text", text: "be brief" }] },
    {
      role: "user",
      content: [{ type: "input_text", text: "look" }, {
        type: "input_image",
        image_url: "https://x/y.png",
      }],
    },
    {
      type: "function_call",
      call_id: "c1",
      name: "read_file",
      arguments: "{}",
    },
    {
      type: "function_call_output",
      call_id: "c1",
      output: [{ type: "input_text", text: "ok" }],
    },
  ],
  tools: [{
    type: "function",
    name: "read_file",
    parameters: { type: "object" },
  }],
  tool_choice: { type: "function", name: "read_file" },
  text: {
    format: { type: "json_schema", name: "n", schema: { type: "object" } },
  },
  reasoning: { effort: "low" },
  metadata: { a: "b" },
};

const BODIES: Record<string, Record<string, unknown>> = {
  "POST /v1/responses": RESPONSES_BODY,
  "POST /v1/responses/input_tokens": RESPONSES_BODY,
  "POST /v1/chat/completions": {
    model: "switchyard",
    messages: [
      { role: "system", content: [{ type: "text", text: "be brief" }] },
      {
        role: "user",
        content: [{ type: "text", text: "look" }, {
          type: "image_url",
          image_url: { url: "https://x/y.png" },
        }],
      },
      { role: "assistant", content: null, tool_calls: [TOOL_CALL] },
      {
        role: "tool",
        tool_call_id: "c1",
        content: [{ type: "text", text: "ok" }],
      },
    ],
    tools: [{
      type: "function",
      function: { name: "read_file", parameters: { type: "object" } },
    }],
    tool_choice: { type: "function", function: { name: "read_file" } },
    response_format: {
      type: "json_schema",
      json_schema: { name: "n", schema: { type: "object" } },
    },
    stream_options: { include_usage: true },
  },
  "POST /v1/messages": {
    model: "switchyard",
    max_tokens: 10,
    system: [{ type: "text", text: "be brief" }],
    messages: [
      {
        role: "user",
        content: [{ type: "text", text: "look" }, {
          type: "image",
          source: { type: "url", url: "https://x/y.png" },
        }],
      },
      {
        role: "assistant",
        content: [{
          type: "tool_use",
          id: "t1",
          name: "read_file",
          input: { path: "a" },
        }],
      },
      {
        role: "user",
        content: [{
          type: "tool_result",
          tool_use_id: "t1",
          content: [{ type: "text", text: "ok" }],
        }],
      },
    ],
    tools: [{ name: "read_file", input_schema: { type: "object" } }],
    tool_choice: { type: "tool", name: "read_file" },
  },
  "POST /v1/messages/count_tokens": {
    model: "switchyard",
    system: [{ type: "text", text: "be brief" }],
    messages: [{ role: "user", content: [{ type: "text", text: "look" }] }],
    tools: [{ name: "read_file", input_schema: { type: "object" } }],
  },
};

/** Objects the surface reads as free-form data (a tool's arguments, a JSON schema's inside). */
const OPAQUE = new Set(["messages[1].content[0].input"]);

function objectPaths(
  value: unknown,
  path: (string | number)[] = [],
): (string | number)[][] {
  if (Array.isArray(value)) {
    return value.flatMap((v, i) => objectPaths(v, [...path, i]));
  }
  if (typeof value !== "object" || value === null) return [];
  return [
    ...(path.length > 0 ? [path] : []),
    ...Object.entries(value).flatMap(([k, v]) => objectPaths(v, [...path, k])),
  ];
}

function withArrayAt(body: unknown, path: (string | number)[]): unknown {
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let at = copy;
  for (const key of path.slice(0, -1)) {
    at = at[key] as Record<string | number, unknown>;
  }
  at[path.at(-1)!] = [];
  return copy;
}

describe("an array where a compatible request has an object", () => {
  const suite = appWithSession("compat-shapes");

  test("the table names every compatible route that can carry a body", () => {
    const compat = ROUTES.filter((r) =>
      r.method !== "GET" && r.method !== "DELETE" && r.path.startsWith("/v1/")
    )
      .map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(Object.keys(BODIES).sort(), compat.sort());
  });

  for (const [route, body] of Object.entries(BODIES)) {
    const [method, url] = route.split(" ");
    for (const path of objectPaths(body)) {
      const at = formatPath(path);
      if (
        OPAQUE.has(at) || at.endsWith(".schema") ||
        at.endsWith("parameters.type")
      ) continue;
      test(`${route}: [] for ${at} is 422 naming ${at}`, async () => {
        const r = await call(suite.app, method, url, {
          token: suite.alice.token,
          body: withArrayAt(body, path),
        });
        // The Responses surface answers invalid input with OpenAI's own 400.
        const status = route.startsWith("POST /v1/responses") ? 400 : 422;
        assert.equal(r.status, status, JSON.stringify(r.body));
        assert.equal(r.headers.get("content-type"), "application/json");
        if (
          route.startsWith("POST /v1/chat") ||
          route.startsWith("POST /v1/responses")
        ) {
          assert.equal(r.body.error.type, "invalid_request_error");
          assert.equal(r.body.error.code, "invalid_request");
          assert.equal(r.body.error.param, at);
        } else {
          assert.equal(r.body.type, "error");
          assert.equal(r.body.error.type, "invalid_request_error");
          assert.ok(
            r.body.error.message.startsWith(`invalid ${at}:`),
            r.body.error.message,
          );
        }
      });
    }
  }
});
