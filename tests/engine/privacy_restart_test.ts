/**
 * Privacy and durability end to end: a canary in restricted files and tool
 * results never reaches a remote provider (read from the fake providers'
 * recorded requests), and a run waiting for tool results survives a restart.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { call, signUp } from "../support/app.ts";
import { type FakeProvider, startFakeProvider } from "../support/fake_provider.ts";
import { createEngineApp, ollamaReply, openAiReply } from "../support/engine_app.ts";
import { openPglite } from "../../src/store/pglite_driver.ts";

let openai: FakeProvider;
let ollama: FakeProvider;
const KEY = { "x-router-provider-openai-api-key": "sk-test-openai" };

before(async () => {
  openai = await startFakeProvider();
  ollama = await startFakeProvider();
});

after(async () => {
  await openai.close();
  await ollama.close();
});

const FILE_CANARY = "CANARY-FILE-7f3a9c";
const TOOL_CANARY = "CANARY-TOOL-52be10";

const policy = {
  routing: { default: { model: "openai/gpt-4o-mini", fallbacks: ["ollama/qwen3:8b"] }, rules: [] },
  tools: { permissions: { file_read: "allow" } },
  privacy: { restricted_paths: ["secret/**"], remote: { mode: "allow" } },
};

describe("privacy", () => {
  test("restricted files and tool results on restricted paths never reach a remote provider", async () => {
    const app = await createEngineApp({ openai: openai.url, ollama: ollama.url });
    const alice = await signUp(app);
    const created = await call(app, "POST", "/api/v1/sessions", {
      token: alice.token,
      body: { title: "private" },
    });
    const id = created.body.session.id;
    const path = (p: string) => `/api/v1/sessions/${id}/${p}`;
    const opts = (body: unknown) => ({ token: alice.token, body, headers: KEY });

    openai.enqueue(
      openAiReply({ calls: [{ name: "read_file", arguments: { path: "secret/key.txt" } }] }),
    );
    const first = await call(
      app,
      "POST",
      path("execute"),
      opts({
        input: { text: "what is in the key file?" },
        policy,
        attachments: {
          files: [{
            path: "secret/notes.txt",
            content: FILE_CANARY,
            content_hash: "sha256:0",
            required: false,
          }],
          instructions: [],
        },
      }),
    );
    assert.equal(first.body.status, "awaiting_tool");
    const callId = first.body.data.tool_requests[0].call_id;

    ollama.enqueue(ollamaReply({ text: "the key is safe" }));
    const second = await call(
      app,
      "POST",
      path("continue"),
      opts({
        type: "tool_results",
        data: { results: [{ call_id: callId, content: TOOL_CANARY, is_error: false }] },
      }),
    );
    assert.equal(second.body.status, "completed");
    // The constrained tool result made local required.
    assert.equal(second.body.data.routing.provider, "ollama");

    // A later run: the reply produced from constrained content stays out of remote prompts.
    openai.enqueue(openAiReply({ text: "hello" }));
    const third = await call(app, "POST", path("execute"), opts({ input: { text: "hi" }, policy }));
    assert.equal(third.body.data.routing.provider, "openai");
    assert.ok(third.body.data.context.excluded.some((s: string) => s.endsWith("(restricted)")));

    assert.ok(openai.requests.length >= 2);
    for (const r of openai.requests) {
      assert.ok(!r.body.includes(FILE_CANARY), "the restricted file reached OpenAI");
      assert.ok(!r.body.includes(TOOL_CANARY), "the restricted tool result reached OpenAI");
      assert.ok(!r.body.includes("the key is safe"), "a constrained reply reached OpenAI");
    }
    assert.ok(ollama.requests.some((r) => r.body.includes(TOOL_CANARY)));
    await app.close();
  });
});

describe("restart", () => {
  test("a run waiting for tool results is continued by a restarted service", async () => {
    const db = await openPglite("memory://");
    const before = await createEngineApp({ openai: openai.url, ollama: ollama.url, db });
    const alice = await signUp(before);
    const created = await call(before, "POST", "/api/v1/sessions", {
      token: alice.token,
      body: { title: "durable" },
    });
    const id = created.body.session.id;
    openai.enqueue(openAiReply({ calls: [{ name: "read_file", arguments: { path: "a.txt" } }] }));
    const paused = await call(before, "POST", `/api/v1/sessions/${id}/execute`, {
      token: alice.token,
      headers: KEY,
      body: { input: { text: "read a.txt" }, policy },
    });
    assert.equal(paused.body.status, "awaiting_tool");
    await before.close();

    const restarted = await createEngineApp({ openai: openai.url, ollama: ollama.url, db });
    openai.enqueue(openAiReply({ text: "a.txt says hi" }));
    const done = await call(restarted, "POST", `/api/v1/sessions/${id}/continue`, {
      token: alice.token,
      headers: KEY,
      body: {
        type: "tool_results",
        data: {
          results: [{ call_id: paused.body.data.tool_requests[0].call_id, content: "hi" }],
        },
      },
    });
    assert.equal(done.status, 200);
    assert.equal(done.body.status, "completed");
    assert.equal(done.body.data.message.content, "a.txt says hi");
    assert.ok(JSON.stringify(openai.requests.at(-1)!.json).includes("read a.txt"));
    await restarted.close();
    await db.close();
  });
});
