/**
 * Claude Code's own request (fixtures/claude_code/read_png_request.json: its
 * headers and betas, metadata.user_id as JSON text, cache_control, thinking,
 * context_management, and a Read tool result carrying a PNG) through the
 * service to every provider kind, each a fake speaking its recorded wire
 * format: answered with a stream, never a 400. The screenshot reaches each
 * provider in its API's form (OpenAI: a user message after the tool message;
 * Anthropic: inside the tool_result; Gemini: inline data after the function
 * response), and a model without image input gets a note in its place, which
 * the trace records. The conversation goes on afterwards in the session the
 * metadata names.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import type { WireProtocol } from "../../src/providers/registry.ts";
import { type Account, call, createTestApp, signUp, type TestApp } from "../support/app.ts";
import { type FakeProvider, startFakeProvider } from "../support/fake_provider.ts";

interface Recorded {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: { messages: Record<string, unknown>[] } & Record<string, unknown>;
}
const RECORDED = JSON.parse(
  readFileSync(
    new URL(
      "../../fixtures/claude_code/read_png_request.json",
      import.meta.url,
    ),
    "utf8",
  ),
) as Recorded;
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

interface Kind {
  provider: WireProtocol;
  model: string;
  header: string;
  base: (url: string) => string;
  images: boolean;
  /** Where the provider's request carries the screenshot (when the model takes images). */
  carries(body: Record<string, unknown>): boolean;
}

// deno-lint-ignore no-explicit-any
type Any = any;

const KINDS: Kind[] = [
  {
    provider: "openai",
    model: "gpt-4o-mini",
    header: "openai",
    base: (u) => `${u}/v1`,
    images: true,
    carries: (b: Any) => {
      const at = b.messages.findIndex((m: Any) => m.role === "tool");
      const next = b.messages[at + 1];
      return at >= 0 && typeof b.messages[at].content === "string" &&
        next?.role === "user" &&
        next.content.some((p: Any) => p.image_url?.url === `data:image/png;base64,${PNG}`);
    },
  },
  {
    provider: "anthropic",
    model: "claude-sonnet-4-6",
    header: "anthropic",
    base: (u) => u,
    images: true,
    carries: (b: Any) =>
      b.messages.some((m: Any) =>
        Array.isArray(m.content) &&
        m.content.some((block: Any) =>
          block.type === "tool_result" && Array.isArray(block.content) &&
          block.content.some((c: Any) =>
            c.type === "image" && c.source.data === PNG &&
            c.source.media_type === "image/png"
          )
        )
      ),
  },
  {
    provider: "gemini",
    model: "gemini-2.5-flash",
    header: "gemini",
    base: (u) => u,
    images: true,
    carries: (b: Any) =>
      b.contents.some((c: Any) => {
        const at = c.parts.findIndex((p: Any) => p.functionResponse !== undefined);
        return at >= 0 && c.parts[at + 1]?.inlineData?.data === PNG;
      }),
  },
  {
    provider: "ollama",
    model: "qwen3:8b",
    header: "",
    base: (u) => u,
    images: false,
    carries: (b: Any) => b.messages.some((m: Any) => m.images !== undefined),
  },
];

const fakes = new Map<string, FakeProvider>();
let app: TestApp;
let alice: Account;

before(async () => {
  for (const k of KINDS) fakes.set(k.provider, await startFakeProvider());
  app = await createTestApp({
    providers: Object.fromEntries(
      KINDS.map((k) => [k.provider, {
        base_url: k.base(fakes.get(k.provider)!.url),
        models: [k.model],
      }]),
    ),
  });
  alice = await signUp(app);
});

after(async () => {
  await app.close();
  for (const f of fakes.values()) await f.close();
});

function send(k: Kind, body: unknown): Promise<Response> {
  return app.handler(
    new Request(`http://switchyard.test${RECORDED.path}`, {
      method: RECORDED.method,
      headers: {
        ...RECORDED.headers,
        "x-api-key": alice.apiKey,
        ...(k.header === "" ? {} : { [`x-router-provider-${k.header}-api-key`]: "sk-test" }),
      },
      body: JSON.stringify(body),
    }),
  );
}

describe("Claude Code's request, a PNG in a tool result, to every provider kind", () => {
  for (const k of KINDS) {
    test(`${k.provider}: answered, the screenshot ${k.images ? "sent as the API takes it" : "as a note"}`, async () => {
      const stored = await call(app, "PUT", "/api/v1/policies/default", {
        token: alice.token,
        body: {
          routing: { default: { model: `${k.provider}/${k.model}` } },
          privacy: { remote: { mode: "allow" } },
        },
      });
      assert.ok(stored.status < 300, JSON.stringify(stored.body));
      const fake = fakes.get(k.provider)!;
      fake.requests.length = 0;
      await fake.enqueueFixture(k.provider, "streamed_answer");
      const response = await send(k, RECORDED.body);
      const text = await response.text();
      assert.equal(response.status, 200, text);
      assert.match(
        response.headers.get("content-type") ?? "",
        /^text\/event-stream/,
      );
      assert.match(text, /event: message_stop/);
      const sent = fake.requests.find((r) => r.method === "POST" && !r.path.includes("/api/show"))!;
      const body = sent.json as Record<string, unknown>;
      assert.equal(k.carries(body), k.images, sent.body.slice(0, 2000));
      const session = response.headers.get("x-router-session-id")!;
      const traceId = response.headers.get("x-router-trace-id")!;
      const trace = await call(
        app,
        "GET",
        `/api/v1/sessions/${session}/traces`,
        {
          token: alice.token,
        },
      );
      const omitted = trace.body.trace.events.filter((e: Any) =>
        e.trace_id === traceId && e.event_type === "context_selection" &&
        e.payload.plaintext.kind === "image"
      );
      if (k.images) {
        assert.equal(omitted.length, 0);
        assert.ok(!sent.body.includes("[image omitted"));
      } else {
        assert.ok(
          sent.body.includes("[image omitted: image/png, 70 bytes]"),
          sent.body,
        );
        assert.equal(omitted.length, 1);
        assert.deepEqual(
          {
            included: omitted[0].payload.plaintext.included,
            reason: omitted[0].payload.plaintext.reason,
            media_type: omitted[0].payload.plaintext.media_type,
            bytes: omitted[0].payload.plaintext.bytes,
          },
          {
            included: false,
            reason: "no image input",
            media_type: "image/png",
            bytes: 70,
          },
        );
      }
    });
  }

  test("an image by URL in a tool result, to a provider that takes no image URLs: a note, not a 400", async () => {
    const k = KINDS.find((kind) => kind.provider === "gemini")!;
    await call(app, "PUT", "/api/v1/policies/default", {
      token: alice.token,
      body: {
        routing: { default: { model: `${k.provider}/${k.model}` } },
        privacy: { remote: { mode: "allow" } },
      },
    });
    const fake = fakes.get(k.provider)!;
    fake.requests.length = 0;
    await fake.enqueueFixture(k.provider, "streamed_answer");
    const body = structuredClone(RECORDED.body) as Any;
    body.messages[2].content[0].content = [{
      type: "image",
      source: { type: "url", url: "https://example.test/shot.png" },
    }];
    const response = await send(k, body);
    const text = await response.text();
    assert.equal(response.status, 200, text);
    const sent = fake.requests.find((r) => r.method === "POST")!;
    assert.ok(sent.body.includes("[image omitted: image by URL]"), sent.body);
    assert.ok(!sent.body.includes("example.test"));
  });

  test("the conversation goes on with the screenshot in its history, in the session its metadata names", async () => {
    const k = KINDS[0];
    await call(app, "PUT", "/api/v1/policies/default", {
      token: alice.token,
      body: {
        routing: { default: { model: `${k.provider}/${k.model}` } },
        privacy: { remote: { mode: "allow" } },
      },
    });
    const fake = fakes.get(k.provider)!;
    await fake.enqueueFixture(k.provider, "streamed_answer");
    const first = await send(k, RECORDED.body);
    await first.text();
    assert.equal(first.status, 200);
    const later = structuredClone(RECORDED.body);
    later.messages.push(
      {
        role: "assistant",
        content: [{ type: "text", text: "It shows a single pixel." }],
      },
      {
        role: "user",
        content: [{ type: "text", text: "Thanks. Now summarize the README." }],
      },
    );
    // Without the header too: the metadata's session part names the session.
    const { "x-claude-code-session-id": _, ...headers } = RECORDED.headers;
    await fake.enqueueFixture(k.provider, "streamed_answer");
    const second = await app.handler(
      new Request(`http://switchyard.test${RECORDED.path}`, {
        method: "POST",
        headers: {
          ...headers,
          "x-api-key": alice.apiKey,
          "x-router-provider-openai-api-key": "sk-test",
        },
        body: JSON.stringify(later),
      }),
    );
    await second.text();
    assert.equal(second.status, 200);
    assert.equal(
      second.headers.get("x-router-session-id"),
      first.headers.get("x-router-session-id"),
    );
  });
});
