/**
 * End-to-end encrypted sessions (issue 6, decisions.md §8) through the
 * in-process handler, with a client that really seals and opens (AES-256-GCM
 * through Web Crypto): multi-turn runs with tool calls, plans, session memory,
 * inject and break, buffered and streamed. After each, every column of every
 * table is scanned for the canary strings the fake provider did receive.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Account, call, signUp, type TestApp } from "../support/app.ts";
import { type FakeProvider, startFakeProvider } from "../support/fake_provider.ts";
import {
  callStream,
  createEngineApp,
  openAiReply,
  openAiStream,
  openAiToolCallStream,
} from "../support/engine_app.ts";
import { type SealingClient, sealingClient } from "../support/sealing_client.ts";
import { dumpDatabase } from "../support/db_dump.ts";

let openai: FakeProvider;
let app: TestApp;
let alice: Account;
let client: SealingClient;
const KEY = { "x-router-provider-openai-api-key": "sk-test-openai" };
const policy = {
  routing: { default: { model: "openai/gpt-4o-mini" }, rules: [] },
  tools: { permissions: { file_read: "allow", memory: "allow" } },
  privacy: { remote: { mode: "allow" } },
};

before(async () => {
  openai = await startFakeProvider();
  app = await createEngineApp({ openai: openai.url, ollama: "http://127.0.0.1:9" });
  alice = await signUp(app);
  client = await sealingClient("key-alice-1");
});
after(async () => {
  await app.close();
  await openai.close();
});

async function session(keyId = client.keyId): Promise<string> {
  const r = await call(app, "POST", "/api/v1/sessions", {
    token: alice.token,
    body: { title: "sealed", key_id: keyId },
  });
  return r.body.session.id;
}

const post = (id: string, what: "execute" | "continue", body: unknown) =>
  call(app, "POST", `/api/v1/sessions/${id}/${what}`, {
    token: alice.token,
    body,
    headers: KEY,
    unchecked: true,
  });
const cont = (id: string, body: unknown) => post(id, "continue", body);

/**
 * The canaries reached the provider (so the scan can fail) and never the
 * database; `replies` are the provider's last answers, which it never
 * received back (the test saw them in the turn response).
 */
async function assertSealedAtRest(canaries: string[], replies: string[] = []): Promise<void> {
  const sent = openai.requests.map((r) => r.body).join("\n");
  const dump = await dumpDatabase(app.db);
  for (const canary of canaries) {
    assert.ok(sent.includes(canary), `the provider received ${canary}`);
  }
  for (const canary of [...canaries, ...replies]) {
    assert.equal(dump.includes(canary), false, `${canary} is stored readable`);
  }
}

// deno-lint-ignore no-explicit-any
type Body = any;

/** Seals everything the service handed out in `to_encrypt`. */
const sealedOf = (data: Body) => client.sealAll(data.to_encrypt ?? {});

async function sealTo(id: string, body: Body, status: string): Promise<Body> {
  const r = await cont(id, { type: "sealed", data: { encrypted: await sealedOf(body.data) } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.status, status);
  return r.body;
}

async function decryptTo(id: string, body: Body, status: string): Promise<Body> {
  assert.equal(body.status, "awaiting_decrypt");
  assert.deepEqual(body.allowed_continuations, ["decrypted", "inject", "break"]);
  const r = await cont(id, {
    type: "decrypted",
    data: {
      plaintext: await client.openAll(body.data.to_decrypt),
      encrypted: await sealedOf(body.data),
    },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.status, status);
  return r.body;
}

describe("encrypted runs, buffered", () => {
  test("a multi-turn run with a tool call and session memory stores only what the client sealed", async () => {
    const id = await session();
    openai.requests.length = 0;
    const prompt = "PROMPT_ALPHA77 read the file";
    openai.enqueue(openAiReply({
      calls: [{ name: "read_file", arguments: { path: "src/ARG_BRAVO41.ts" } }],
    }));
    const paused = await post(id, "execute", {
      input: { text: prompt, ciphertext: await client.seal(prompt) },
      policy,
    });
    assert.equal(paused.status, 200, JSON.stringify(paused.body));
    assert.equal(paused.body.status, "awaiting_tool");
    const request = paused.body.data.tool_requests[0];
    assert.equal(request.arguments.path, "src/ARG_BRAVO41.ts");
    const refs = Object.keys(paused.body.data.to_encrypt);
    assert.ok(refs.some((r) => r.startsWith("run_input:")), "the run input is handed out to seal");
    assert.ok(!refs.includes("message:1"), "the sealed prompt is not asked for again");

    const result = "RESULT_CHARLIE52";
    const resumed = await cont(id, {
      type: "tool_results",
      data: {
        results: [{ call_id: request.call_id, content: result }],
        encrypted: {
          ...(await sealedOf(paused.body.data)),
          [`tool_call:${request.call_id}:result`]: await client.seal(result),
        },
      },
    });
    assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
    openai.enqueue(openAiReply({
      calls: [{
        name: "memory",
        arguments: { op: "record", scope: "session", key: "fav", value: "MEMORY_DELTA19" },
      }],
    }));
    openai.enqueue(openAiReply({ text: "ANSWER_ECHO88" }));
    const done = await decryptTo(id, resumed.body, "completed");
    assert.equal(done.data.message.content, "ANSWER_ECHO88");
    assert.deepEqual(done.allowed_continuations, ["sealed", "break"]);
    const toSeal = Object.entries(done.data.to_encrypt as Record<string, string>);
    assert.ok(toSeal.some(([r, v]) => r.startsWith("memory:") && v === "MEMORY_DELTA19"));
    assert.ok(toSeal.some(([r, v]) => r.startsWith("message:") && v === "ANSWER_ECHO88"));
    assert.ok(toSeal.some(([r]) => r.startsWith("trace:")), "trace payloads are handed out");
    const sentResult = JSON.stringify(openai.requests.at(-2)!.json);
    assert.ok(sentResult.includes(result), "the opened tool result reached the model");
    // The provider's own call id rode in the sealed run input and went back to it.
    const wire = (openai.requests.at(-2)!.json as { messages: Body[] }).messages;
    assert.equal(wire.find((m) => m.role === "assistant")?.tool_calls[0].id, "call_0");
    assert.equal(wire.find((m) => m.role === "tool")?.tool_call_id, "call_0");
    assert.notEqual(request.call_id, "call_0", "the client sees the service's own id");
    await sealTo(id, done, "idle");

    // A second run: history and session memory are sealed, so the run input is sealed first.
    const second = await post(id, "execute", { input: { text: "PROMPT_FOXTROT33" }, policy });
    assert.equal(second.status, 200, JSON.stringify(second.body));
    assert.equal(second.body.status, "awaiting_encrypt");
    assert.deepEqual(second.body.allowed_continuations, ["sealed", "break"]);
    assert.ok(Object.values(second.body.data.to_encrypt).includes("PROMPT_FOXTROT33"));
    const opening = await sealTo(id, second.body, "awaiting_decrypt");
    assert.ok("message:1" in opening.data.to_decrypt && "message:2" in opening.data.to_decrypt);
    openai.enqueue(openAiReply({ text: "ANSWER_GOLF64" }));
    const last = await decryptTo(id, opening, "completed");
    const sent = JSON.stringify(openai.requests.at(-1)!.json);
    for (const past of ["PROMPT_ALPHA77", "ANSWER_ECHO88", "MEMORY_DELTA19", "PROMPT_FOXTROT33"]) {
      assert.ok(sent.includes(past), `the opened ${past} reached the model`);
    }
    await sealTo(id, last, "idle");

    const detail = await call(app, "GET", `/api/v1/sessions/${id}`, { token: alice.token });
    const messages = detail.body.session.messages;
    assert.deepEqual(messages.map((m: Body) => m.role), ["user", "assistant", "user", "assistant"]);
    const opened = [];
    for (const m of messages) {
      assert.deepEqual(Object.keys(m.content), ["encrypted"]);
      opened.push(await client.open(m.content.encrypted));
    }
    assert.deepEqual(opened, [prompt, "ANSWER_ECHO88", "PROMPT_FOXTROT33", "ANSWER_GOLF64"]);
    assert.equal(messages[1].provider, "openai");

    const traces = await call(app, "GET", `/api/v1/sessions/${id}/traces?limit=500`, {
      token: alice.token,
    });
    const events = traces.body.trace.events;
    assert.ok(events.length > 10);
    for (const e of events) {
      assert.deepEqual(Object.keys(e.payload), ["encrypted"], `${e.event_type} payload sealed`);
    }
    const cost = events.find((e: Body) => e.event_type === "cost");
    assert.equal(cost.provider, "openai", "routing metadata stays readable");
    const costPayload = JSON.parse(await client.open(cost.payload.encrypted));
    assert.equal(costPayload.type, "cost");
    assert.equal(costPayload.input_tokens, 24);

    const usage = await call(app, "GET", `/api/v1/sessions/${id}/usage`, { token: alice.token });
    assert.deepEqual(usage.body.by_model, [
      { provider: "openai", model: "gpt-4o-mini", request_count: 4 },
    ]);
    assert.deepEqual(Object.keys(usage.body.total), ["currency"]);

    await assertSealedAtRest([
      "PROMPT_ALPHA77",
      "ARG_BRAVO41",
      "RESULT_CHARLIE52",
      "MEMORY_DELTA19",
      "ANSWER_ECHO88",
      "PROMPT_FOXTROT33",
    ], ["ANSWER_GOLF64"]);
  });
});

describe("encrypted plan mode", () => {
  test("the plan is handed out to seal and stored only sealed; approved, the run goes on", async () => {
    const id = await session();
    openai.requests.length = 0;
    const plan = "PLAN_ROMEO61 1. split the module 2. test it";
    openai.enqueue(openAiReply({ text: plan }));
    const paused = await post(id, "execute", {
      input: { text: "PROMPT_SIERRA62 plan the refactor", command: "plan" },
      policy,
    });
    assert.equal(paused.status, 200, JSON.stringify(paused.body));
    assert.equal(paused.body.status, "awaiting_approval");
    const approval = paused.body.data.approval;
    assert.equal(approval.kind, "plan");
    assert.equal(approval.detail.plan, plan);
    assert.ok(Object.values(paused.body.data.to_encrypt).includes(plan), "the plan is to seal");

    const decisions = [{ approval_id: approval.approval_id, decision: "approved" }];
    const unsealed = await cont(id, { type: "approval_decisions", data: { decisions } });
    assert.equal(unsealed.status, 422, "the plan must come back sealed");
    assert.equal(unsealed.body.error.code, "invalid_request");
    const resumed = await cont(id, {
      type: "approval_decisions",
      data: { decisions, encrypted: await sealedOf(paused.body.data) },
    });
    assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
    openai.enqueue(openAiReply({ text: "ANSWER_TANGO63" }));
    const done = await decryptTo(id, resumed.body, "completed");
    assert.ok(JSON.stringify(openai.requests.at(-1)!.json).includes("PLAN_ROMEO61"));
    await sealTo(id, done, "idle");
    await assertSealedAtRest(["PROMPT_SIERRA62", "PLAN_ROMEO61"], ["ANSWER_TANGO63"]);
  });
});

describe("encrypted runs: refusals keep the run", () => {
  test("wrong key_id, missing sealed rows and malformed or tampered envelopes are 422 and the run goes on", async () => {
    const id = await session();
    const prompt = "PROMPT_JULIET20";
    const good = await client.seal(prompt);
    for (
      const bad of [
        { ...good, key_id: "another-key" },
        { ...good, version: 2 },
        { ...good, nonce: "not base64!" },
        { ...good, ciphertext: "abcde" },
        { ...good, ciphertext: good.ciphertext.slice(0, 16) }, // cut short of its tag
        { ...good, nonce: good.nonce.slice(0, 8) }, // 6 bytes: not an AES-256-GCM nonce
      ]
    ) {
      const r = await post(id, "execute", { input: { text: prompt, ciphertext: bad }, policy });
      assert.equal(r.status, 422, JSON.stringify(bad));
      assert.equal(r.body.error.code, "invalid_request");
    }
    openai.enqueue(openAiReply({ calls: [{ name: "read_file", arguments: { path: "a.ts" } }] }));
    const paused = await post(id, "execute", { input: { text: prompt, ciphertext: good }, policy });
    assert.equal(paused.body.status, "awaiting_tool");
    const callId = paused.body.data.tool_requests[0].call_id;
    const result = "RESULT_KILO31";
    const sealed = {
      ...(await sealedOf(paused.body.data)),
      [`tool_call:${callId}:result`]: await client.seal(result),
    };
    const answer = (encrypted: Body) => ({
      type: "tool_results",
      data: { results: [{ call_id: callId, content: result }], encrypted },
    });
    const [firstRef] = Object.keys(sealed);
    const { [firstRef]: _dropped, ...missing } = sealed;
    const wrongKey = { ...sealed, [firstRef]: { ...sealed[firstRef], key_id: "another-key" } };
    const malformed = { ...sealed, [firstRef]: { ...sealed[firstRef], ciphertext: "%%%" } };
    for (const encrypted of [missing, wrongKey, malformed, undefined]) {
      const r = await cont(id, answer(encrypted));
      assert.equal(r.status, 422);
      assert.equal(r.body.error.code, "invalid_request");
    }
    const resumed = await cont(id, answer(sealed));
    assert.equal(resumed.body.status, "awaiting_decrypt");
    const plaintext = await client.openAll(resumed.body.data.to_decrypt);
    const [oneRef] = Object.keys(plaintext);
    const { [oneRef]: _gone, ...partial } = plaintext;
    const short = await cont(id, { type: "decrypted", data: { plaintext: partial } });
    assert.equal(short.status, 422);
    assert.equal(short.body.error.code, "invalid_request");
    openai.enqueue(openAiReply({ text: "ANSWER_LIMA42" }));
    const done = await decryptTo(id, resumed.body, "completed");
    const missingSeal = await cont(id, { type: "sealed", data: { encrypted: {} } });
    assert.equal(missingSeal.status, 422);
    assert.equal(missingSeal.body.error.code, "invalid_request");
    await sealTo(id, done, "idle");
    await assertSealedAtRest([prompt, result], ["ANSWER_LIMA42"]);
  });

  test("inject before the first checkpoint is sealed is refused; after it, the run goes on", async () => {
    const id = await session();
    openai.enqueue(openAiReply({ calls: [{ name: "read_file", arguments: { path: "b.ts" } }] }));
    const paused = await post(id, "execute", { input: { text: "PROMPT_MIKE53" }, policy });
    const inject = async (text: string) => ({
      type: "inject",
      data: { messages: [{ text, ciphertext: await client.seal(text) }] },
    });
    const early = await cont(id, await inject("too early"));
    assert.equal(early.status, 422);
    assert.equal(early.body.error.code, "invalid_request");
    const callId = paused.body.data.tool_requests[0].call_id;
    const resumed = await cont(id, {
      type: "tool_results",
      data: {
        results: [{ call_id: callId, content: "RESULT_NOVEMBER64" }],
        encrypted: {
          ...(await sealedOf(paused.body.data)),
          [`tool_call:${callId}:result`]: await client.seal("RESULT_NOVEMBER64"),
        },
      },
    });
    openai.enqueue(openAiReply({ calls: [{ name: "read_file", arguments: { path: "c.ts" } }] }));
    const again = await decryptTo(id, resumed.body, "awaiting_tool");
    const injected = await cont(id, await inject("INJECT_OSCAR75 instead"));
    assert.equal(injected.status, 200, JSON.stringify(injected.body));
    openai.enqueue(openAiReply({ text: "ANSWER_PAPA86" }));
    const done = await decryptTo(id, injected.body, "completed");
    const sent = JSON.stringify(openai.requests.at(-1)!.json);
    assert.ok(sent.includes("INJECT_OSCAR75") && sent.includes("RESULT_NOVEMBER64"));
    assert.equal(again.data.tool_requests.length, 1);
    await sealTo(id, done, "idle");
    await assertSealedAtRest(
      ["PROMPT_MIKE53", "RESULT_NOVEMBER64", "INJECT_OSCAR75"],
      ["ANSWER_PAPA86"],
    );
  });
});

describe("encrypted runs, streamed", () => {
  const stream = (id: string, what: "execute" | "continue", body: unknown) =>
    callStream(app, `/api/v1/sessions/${id}/${what}`, alice.token, body, KEY);
  const end = (r: { events: Body[] }) => {
    assert.equal(r.events.filter((e) => e.type === "turn_end").length, 1);
    return r.events.at(-1);
  };

  test("a streamed run with a tool call seals through the same steps", async () => {
    const id = await session();
    openai.enqueue(openAiToolCallStream("read_file", { path: "ARG_QUEBEC97" }));
    const paused = end(await stream(id, "execute", { input: { text: "PROMPT_ROMEO08" }, policy }));
    assert.equal(paused.status, "awaiting_tool", JSON.stringify(paused));
    const callId = paused.data.tool_requests[0].call_id;
    const resumed = end(
      await stream(id, "continue", {
        type: "tool_results",
        data: {
          results: [{ call_id: callId, content: "RESULT_SIERRA19" }],
          encrypted: {
            ...(await sealedOf(paused.data)),
            [`tool_call:${callId}:result`]: await client.seal("RESULT_SIERRA19"),
          },
        },
      }),
    );
    assert.equal(resumed.status, "awaiting_decrypt");
    openai.enqueue(openAiStream(["ANSWER_", "TANGO20"]));
    const streamed = await stream(id, "continue", {
      type: "decrypted",
      data: {
        plaintext: await client.openAll(resumed.data.to_decrypt),
        encrypted: await sealedOf(resumed.data),
      },
    });
    const deltas = streamed.events.filter((e) => e.type === "text_delta").map((e) => e.delta);
    assert.equal(deltas.join(""), "ANSWER_TANGO20");
    const done = end(streamed);
    assert.equal(done.status, "completed");
    assert.deepEqual(done.allowed_continuations, ["sealed", "break"]);
    const idle = end(
      await stream(id, "continue", {
        type: "sealed",
        data: { encrypted: await sealedOf(done.data) },
      }),
    );
    assert.equal(idle.status, "idle");
    await assertSealedAtRest(
      ["PROMPT_ROMEO08", "ARG_QUEBEC97", "RESULT_SIERRA19"],
      ["ANSWER_TANGO20"],
    );
  });

  test("break on a streaming turn hands the partial out to seal, then the run is idle", async () => {
    const id = await session();
    openai.enqueue(openAiStream(["PARTIAL_UNIFORM ", "two ", "three ", "four ", "five "], 300));
    const response = await app.handler(
      new Request(`http://127.0.0.1/api/v1/sessions/${id}/execute`, {
        method: "POST",
        headers: { authorization: `Bearer ${alice.token}`, accept: "text/event-stream", ...KEY },
        body: JSON.stringify({ input: { text: "PROMPT_VICTOR31" }, policy }),
      }),
    );
    const reader = response.body!.getReader();
    let text = "";
    while (!text.includes("text_delta")) {
      const { value } = await reader.read();
      text += new TextDecoder().decode(value);
    }
    const broke = await cont(id, { type: "break" });
    assert.equal(broke.status, 200, JSON.stringify(broke.body));
    assert.equal(broke.body.status, "awaiting_encrypt");
    assert.deepEqual(broke.body.allowed_continuations, ["sealed", "break"]);
    const partial = Object.values(broke.body.data.to_encrypt as Record<string, string>);
    assert.ok(partial.some((p) => p.startsWith("PARTIAL_UNIFORM")));
    while (!(await reader.read()).done) { /* drain the superseded stream */ }
    await sealTo(id, broke.body, "idle");
    const detail = await call(app, "GET", `/api/v1/sessions/${id}`, { token: alice.token });
    const last = detail.body.session.messages.at(-1);
    assert.ok((await client.open(last.content.encrypted)).startsWith("PARTIAL_UNIFORM"));
    await assertSealedAtRest(["PROMPT_VICTOR31"], ["PARTIAL_UNIFORM"]);
  });
});

describe("a failed run", () => {
  test("ends idle once its error is surfaced; a later execute runs and continue has no run", async () => {
    const id = await session();
    openai.enqueue({ status: 500, body: { error: { message: "boom" } } });
    const failed = await post(id, "execute", { input: { text: "x" }, policy });
    assert.equal(failed.status, 503);
    const runs = await app.db.query<{ state: string }>(
      "SELECT state FROM runs WHERE session_id = $1",
      [id],
    );
    assert.deepEqual(runs.map((r) => r.state), ["idle"]);
    const none = await cont(id, { type: "break" });
    assert.equal(none.status, 422);
    assert.equal(none.body.error.code, "no_active_run");
    openai.enqueue(openAiReply({ text: "fine" }));
    const ok = await post(id, "execute", { input: { text: "y" }, policy });
    assert.equal(ok.body.status, "completed");
  });
});
