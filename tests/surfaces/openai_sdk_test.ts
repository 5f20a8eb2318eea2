/**
 * The OpenAI-compatible surface as the official `openai` npm client meets it:
 * buffered and streamed completions, a tool-call round trip, usage, errors in
 * OpenAI's shape, privacy and approvals, named policies and sessions found by
 * conversation. The fake providers answer in their recorded wire formats.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { call } from "../support/app.ts";
import { checkedFetch } from "../support/compat_fetch.ts";
import {
  engineHarness,
  ollamaReply,
  openAiReply,
  openAiStream,
  openAiToolCallStream,
} from "../support/engine_app.ts";

const h = engineHarness();
const PROVIDER_KEY: Record<string, string> = {
  "x-router-provider-openai-api-key": "sk-test-openai",
};

function client(headers: Record<string, string> = PROVIDER_KEY): OpenAI {
  return new OpenAI({
    apiKey: h.alice.apiKey,
    baseURL: "http://switchyard.test/v1",
    defaultHeaders: headers,
    maxRetries: 0,
    fetch: checkedFetch(() => h.app),
  });
}

const POLICY = {
  routing: {
    default: { model: "openai/gpt-4o-mini", fallbacks: ["ollama/qwen3:8b"] },
    rules: [{
      name: "private",
      priority: 1,
      paths: ["secrets/**"],
      local_only: true,
      model: "ollama/qwen3:8b",
      fallbacks: [],
    }],
  },
  tools: { permissions: { rm_rf: "deny" } },
  privacy: { restricted_paths: ["secrets/**"], remote: { mode: "allow" } },
};

async function storePolicy(name: string, policy: unknown) {
  const r = await call(h.app, "PUT", `/api/v1/policies/${name}`, {
    token: h.alice.token,
    body: policy,
  });
  assert.ok(r.status === 200 || r.status === 201, JSON.stringify(r.body));
}

const READ_FILE = {
  type: "function" as const,
  function: {
    name: "read_file",
    description: "Read a file",
    parameters: { type: "object", properties: { path: { type: "string" } } },
  },
};

describe("the openai client on /v1/chat/completions", () => {
  test("a buffered completion routes with the default policy and names the model that answered", async () => {
    await storePolicy("default", POLICY);
    h.openai.enqueue(
      openAiReply({ text: "Hello from the fake.", input: 12, output: 5 }),
    );
    const { data, response } = await client().chat.completions.create({
      model: "switchyard",
      messages: [{ role: "system", content: "Be brief." }, {
        role: "user",
        content: "Say hello",
      }],
    }).withResponse();
    assert.equal(data.object, "chat.completion");
    assert.equal(data.model, "openai/gpt-4o-mini");
    assert.equal(data.choices[0].message.content, "Hello from the fake.");
    assert.equal(data.choices[0].finish_reason, "stop");
    assert.deepEqual(data.usage, {
      prompt_tokens: 12,
      completion_tokens: 5,
      total_tokens: 17,
      prompt_tokens_details: { cached_tokens: 0 },
    });
    const sessionId = response.headers.get("x-router-session-id");
    const traceId = response.headers.get("x-router-trace-id");
    assert.ok(sessionId !== null && traceId !== null);
    assert.ok(data.id.endsWith(traceId!));
    // The provider got the client's system prompt and message as they were.
    const sent = JSON.parse(h.openai.requests[0].body);
    assert.deepEqual(sent.messages, [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Say hello" },
    ]);
    // Recorded like a native turn: messages, trace and usage of its session.
    const detail = await call(h.app, "GET", `/api/v1/sessions/${sessionId}`, {
      token: h.alice.token,
    });
    assert.deepEqual(
      detail.body.session.messages.map((m: { role: string }) => m.role),
      ["user", "assistant"],
    );
    assert.deepEqual(detail.body.session.metadata, { surface: "openai" });
    const usage = await call(
      h.app,
      "GET",
      `/api/v1/sessions/${sessionId}/usage`,
      {
        token: h.alice.token,
      },
    );
    assert.equal(usage.status, 200);
    assert.equal(usage.body.total.input_tokens, 12);
  });

  test("a streamed completion arrives as chunks with one id, usage last, then done", async () => {
    h.openai.enqueue(openAiStream(["Hel", "lo"]));
    const stream = await client().chat.completions.create({
      model: "switchyard",
      messages: [{ role: "user", content: "Say hello" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    assert.equal(new Set(chunks.map((c) => c.id)).size, 1);
    assert.equal(chunks[0].choices[0].delta.role, "assistant");
    const text = chunks.flatMap((c) => c.choices.map((ch) => ch.delta.content ?? "")).join("");
    assert.equal(text, "Hello");
    const finishes = chunks.flatMap((c) => c.choices.map((ch) => ch.finish_reason))
      .filter((f) => f !== null);
    assert.deepEqual(finishes, ["stop"]);
    const last = chunks.at(-1)!;
    assert.deepEqual(last.choices, []);
    assert.deepEqual(last.usage, {
      prompt_tokens: 24,
      completion_tokens: 2,
      total_tokens: 26,
      prompt_tokens_details: { cached_tokens: 0 },
    });
  });

  test("a tool-call round trip: the call, the client's result, the answer, in one session", async () => {
    const openai = client();
    h.openai.enqueue(
      openAiReply({
        calls: [{ name: "read_file", arguments: { path: "README.md" } }],
      }),
    );
    const first = await openai.chat.completions.create({
      model: "switchyard",
      messages: [{ role: "user", content: "What is in README.md?" }],
      tools: [READ_FILE],
    }).withResponse();
    const choice = first.data.choices[0];
    assert.equal(choice.finish_reason, "tool_calls");
    const toolCall = choice.message.tool_calls![0];
    assert.equal(toolCall.type, "function");
    assert.equal(toolCall.function.name, "read_file");
    assert.deepEqual(JSON.parse(toolCall.function.arguments), {
      path: "README.md",
    });

    h.openai.enqueue(openAiReply({ text: "It is a README." }));
    const second = await openai.chat.completions.create({
      model: "switchyard",
      messages: [
        { role: "user", content: "What is in README.md?" },
        choice.message,
        { role: "tool", tool_call_id: toolCall.id, content: "# Switchyard" },
      ],
      tools: [READ_FILE],
    }).withResponse();
    assert.equal(second.data.choices[0].message.content, "It is a README.");
    assert.equal(
      second.response.headers.get("x-router-session-id"),
      first.response.headers.get("x-router-session-id"),
    );
    const sent = JSON.parse(h.openai.requests[1].body);
    assert.equal(sent.messages.at(-1).role, "tool");
    assert.equal(
      sent.messages.at(-1).tool_call_id,
      sent.messages.at(-2).tool_calls[0].id,
    );
  });

  test("streamed parallel tool calls keep their indices", async () => {
    h.openai.enqueue(openAiToolCallStream("read_file", { path: "a.ts" }));
    const stream = await client().chat.completions.create({
      model: "switchyard",
      messages: [{ role: "user", content: "read a.ts" }],
      tools: [READ_FILE],
      stream: true,
    });
    const calls = [];
    let finish = null;
    for await (const chunk of stream) {
      for (const c of chunk.choices) {
        calls.push(...(c.delta.tool_calls ?? []));
        finish = c.finish_reason ?? finish;
      }
    }
    assert.equal(finish, "tool_calls");
    assert.equal(calls[0].index, 0);
    assert.equal(calls[0].function?.name, "read_file");
    assert.deepEqual(JSON.parse(calls[0].function?.arguments ?? ""), {
      path: "a.ts",
    });
  });

  test("a denied tool is not offered to the model", async () => {
    h.openai.enqueue(openAiReply({ text: "ok" }));
    await client().chat.completions.create({
      model: "switchyard",
      messages: [{ role: "user", content: "clean up" }],
      tools: [READ_FILE, {
        ...READ_FILE,
        function: { ...READ_FILE.function, name: "rm_rf" },
      }],
    });
    const sent = JSON.parse(h.openai.requests[0].body);
    assert.deepEqual(
      sent.tools.map((t: { function: { name: string } }) => t.function.name),
      [
        "read_file",
      ],
    );
  });

  test("a restricted path in the conversation's tool calls forces the local model", async () => {
    h.ollama.enqueue(ollamaReply({ text: "local answer" }));
    const r = await client().chat.completions.create({
      model: "switchyard",
      messages: [
        { role: "user", content: "read the key" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{
            id: "call_x",
            type: "function",
            function: {
              name: "read_file",
              arguments: JSON.stringify({ path: "secrets/key.txt" }),
            },
          }],
        },
        { role: "tool", tool_call_id: "call_x", content: "hunter2" },
      ],
    });
    assert.equal(r.model, "ollama/qwen3:8b");
    assert.equal(h.openai.requests.length, 0);
  });

  test("a fallback before the first byte of a stream is invisible to the client", async () => {
    h.openai.enqueue({
      status: 503,
      headers: { "content-type": "application/json" },
      body: { error: { message: "down" } },
    });
    h.ollama.enqueue(ollamaReply({ text: "from the fallback" }));
    const r = await client().chat.completions.create({
      model: "switchyard",
      messages: [{ role: "user", content: "hello" }],
    });
    assert.equal(r.model, "ollama/qwen3:8b");
    assert.equal(r.choices[0].message.content, "from the fallback");
  });

  test("a streamed fallback before the first byte is invisible; a failure after output is an error, never a clean end", async () => {
    h.openai.enqueue({
      status: 503,
      headers: { "content-type": "application/json" },
      body: { error: { message: "down" } },
    });
    h.ollama.enqueue(ollamaReply({ text: "from the fallback" }));
    const fallback = await client().chat.completions.create({
      model: "switchyard",
      messages: [{ role: "user", content: "hello" }],
      stream: true,
    });
    let text = "";
    const models = new Set<string>();
    for await (const chunk of fallback) {
      models.add(chunk.model);
      text += chunk.choices[0]?.delta.content ?? "";
    }
    assert.equal(text, "from the fallback");
    assert.deepEqual([...models], ["ollama/qwen3:8b"]);

    await h.openai.enqueueFixture("openai", "stream_cut");
    const cut = await client().chat.completions.create({
      model: "switchyard",
      messages: [{ role: "user", content: "hello" }],
      stream: true,
    });
    let received = "";
    await assert.rejects(
      (async () => {
        for await (const chunk of cut) received += chunk.choices[0]?.delta.content ?? "";
      })(),
      (e: unknown) => e instanceof OpenAI.APIError,
    );
    assert.ok(received.length > 0, "some output arrived before the failure");
    // Nothing fell back once output had begun.
    assert.equal(h.ollama.requests.length, 1);
  });

  test("errors come in OpenAI's shape: unknown model, wrong key, unsupported field", async () => {
    await assert.rejects(
      client().chat.completions.create({
        model: "switchyard/nope",
        messages: [{ role: "user", content: "x" }],
      }),
      (e: unknown) => {
        assert.ok(e instanceof OpenAI.NotFoundError);
        assert.equal((e.error as { code: string }).code, "model_not_found");
        return true;
      },
    );
    const wrong = new OpenAI({
      apiKey: `${h.alice.apiKey.slice(0, -4)}zzzz`,
      baseURL: "http://switchyard.test/v1",
      maxRetries: 0,
      fetch: checkedFetch(() => h.app),
    });
    await assert.rejects(
      wrong.chat.completions.create({
        model: "switchyard",
        messages: [{ role: "user", content: "x" }],
      }),
      (e: unknown) => e instanceof OpenAI.AuthenticationError,
    );
    await assert.rejects(
      client().chat.completions.create({
        model: "switchyard",
        n: 2,
        messages: [{ role: "user", content: "x" }],
      }),
      (e: unknown) => {
        assert.ok(e instanceof OpenAI.BadRequestError);
        assert.equal((e.error as { param: string }).param, "n");
        return true;
      },
    );
  });

  test("a turn that would need an approval is refused before any model call", async () => {
    await storePolicy("asks", {
      ...POLICY,
      privacy: { remote: { mode: "ask" } },
    });
    await assert.rejects(
      client().chat.completions.create({
        model: "switchyard/asks",
        messages: [
          { role: "user", content: "summarize" },
          {
            role: "assistant",
            content: null,
            tool_calls: [{
              id: "c1",
              type: "function",
              function: { name: "read_file", arguments: '{"path":"src/a.ts"}' },
            }],
          },
          { role: "tool", tool_call_id: "c1", content: "export {}" },
        ],
      }),
      (e: unknown) => {
        assert.ok(e instanceof OpenAI.PermissionDeniedError);
        assert.equal((e.error as { code: string }).code, "approval_required");
        return true;
      },
    );
    assert.equal(h.openai.requests.length, 0);
  });

  test("an image part reaches a model that takes images, and is refused by name for one that does not", async () => {
    h.openai.enqueue(openAiReply({ text: "a cat" }));
    const image = {
      type: "image_url" as const,
      image_url: { url: "data:image/png;base64,iVBORw0KGgo=" },
    };
    const seen = await client().chat.completions.create({
      model: "switchyard",
      messages: [{ role: "user", content: [{ type: "text", text: "what is this?" }, image] }],
    });
    assert.equal(seen.choices[0].message.content, "a cat");
    const sent = JSON.parse(h.openai.requests[0].body);
    assert.deepEqual(sent.messages.at(-1).content, [
      { type: "text", text: "what is this?" },
      { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
    ]);
    await assert.rejects(
      client().chat.completions.create({
        model: "ollama/qwen3:8b",
        messages: [{ role: "user", content: [{ type: "text", text: "what is this?" }, image] }],
      }),
      (e: unknown) => {
        assert.ok(e instanceof OpenAI.BadRequestError);
        assert.equal((e.error as { param: string }).param, "messages[].content[].image_url");
        return true;
      },
    );
    assert.equal(h.ollama.requests.length, 0);
  });

  test("a pinned policy version routes with that version", async () => {
    await storePolicy("pinned", {
      routing: {
        default: { model: "ollama/qwen3:8b", fallbacks: [] },
        rules: [],
      },
    });
    await storePolicy("pinned", POLICY);
    h.ollama.enqueue(ollamaReply({ text: "v1" }));
    const r = await client().chat.completions.create({
      model: "switchyard/pinned@1",
      messages: [{ role: "user", content: "hi" }],
    });
    assert.equal(r.model, "ollama/qwen3:8b");
  });

  test("models list the policies and the catalog", async () => {
    const ids = [];
    for await (const m of client().models.list()) ids.push(m.id);
    assert.equal(ids[0], "switchyard");
    assert.ok(ids.includes("switchyard/default"));
    assert.ok(ids.includes("openai/gpt-4o-mini"));
    const one = await client().models.retrieve("openai/gpt-4o-mini");
    assert.equal(one.id, "openai/gpt-4o-mini");
  });
});

describe("sessions of compatible conversations", () => {
  async function ask(
    messages: OpenAI.ChatCompletionMessageParam[],
    headers = PROVIDER_KEY,
  ) {
    const r = await client(headers).chat.completions.create({
      model: "switchyard",
      messages,
    })
      .withResponse();
    return {
      data: r.data,
      session: r.response.headers.get("x-router-session-id")!,
    };
  }

  test("three requests of one conversation land in one session; a divergent one in its own", async () => {
    h.openai.enqueue(openAiReply({ text: "one" }));
    const a = await ask([{ role: "user", content: "count" }]);
    h.openai.enqueue(openAiReply({ text: "two" }));
    const b = await ask([
      { role: "user", content: "count" },
      { role: "assistant", content: "one" },
      { role: "user", content: "more" },
    ]);
    h.openai.enqueue(openAiReply({ text: "three" }));
    const c = await ask([
      { role: "user", content: "count" },
      { role: "assistant", content: "one" },
      { role: "user", content: "more" },
      { role: "assistant", content: "two" },
      { role: "user", content: "more" },
    ]);
    assert.equal(b.session, a.session);
    assert.equal(c.session, a.session);
    h.openai.enqueue(openAiReply({ text: "other" }));
    const d = await ask([
      { role: "user", content: "count" },
      { role: "assistant", content: "a different answer" },
      { role: "user", content: "more" },
    ]);
    assert.notEqual(d.session, a.session);
  });

  test("a native break that cuts a compatible turn answers it 400 turn_interrupted, in OpenAI's shape", async () => {
    const own = await call(h.app, "POST", "/api/v1/sessions", {
      token: h.alice.token,
      body: { title: "cut" },
    });
    const id = own.body.session.id;
    h.openai.enqueue({ ...openAiReply({ text: "slow answer" }), delay_ms: 500 });
    const asked = client({ ...PROVIDER_KEY, "x-router-session-id": id }).chat.completions.create({
      model: "switchyard",
      messages: [{ role: "user", content: "take your time" }],
    });
    // Heard from the start: the cut turn may answer before the break does.
    const refused = assert.rejects(asked, (e: unknown) => {
      assert.ok(e instanceof OpenAI.BadRequestError);
      assert.equal((e.error as { code: string }).code, "turn_interrupted");
      return true;
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    const cut = await call(h.app, "POST", `/api/v1/sessions/${id}/continue`, {
      token: h.alice.token,
      body: { type: "break" },
    });
    assert.equal(cut.status, 200, JSON.stringify(cut.body));
    await refused;
  });

  test("X-Router-Session-Id wins", async () => {
    const own = await call(h.app, "POST", "/api/v1/sessions", {
      token: h.alice.token,
      body: { title: "mine" },
    });
    const id = own.body.session.id;
    h.openai.enqueue(openAiReply({ text: "here" }));
    const r = await ask([{ role: "user", content: "hi" }], {
      ...PROVIDER_KEY,
      "x-router-session-id": id,
    });
    assert.equal(r.session, id);
  });
});
