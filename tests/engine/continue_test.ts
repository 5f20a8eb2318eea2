/**
 * Tool mediation and continuations end to end through the in-process handler:
 * awaiting_tool with allow/ask/deny, tool_results validated one to one, the
 * memory tool run by the service, break, inject, execute superseding a pause,
 * and the refusals of decisions.md §2 that keep the checkpoint.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { call } from "../support/app.ts";
import { callStream, engineHarness, openAiReply } from "../support/engine_app.ts";

const h = engineHarness();
const KEY = { "x-router-provider-openai-api-key": "sk-test-openai" };

const policy = {
  routing: { default: { model: "openai/gpt-4o-mini" }, rules: [] },
  tools: { permissions: { file_read: "allow", file_write: "deny" } },
  privacy: { remote: { mode: "allow" } },
};
const turn = (text: string) => ({ input: { text }, policy });

const execute = (id: string, body: unknown) =>
  call(h.app, "POST", `/api/v1/sessions/${id}/execute`, {
    token: h.alice.token,
    body,
    headers: KEY,
  });
const cont = (id: string, body: unknown) =>
  call(h.app, "POST", `/api/v1/sessions/${id}/continue`, {
    token: h.alice.token,
    body,
    headers: KEY,
  });

const THREE_CALLS = [
  { name: "read_file", arguments: { path: "src/a.ts" } },
  { name: "shell", arguments: { command: "ls" } },
  { name: "write_file", arguments: { path: "src/a.ts", content: "x" } },
];

describe("tool mediation", () => {
  test("allow and ask calls go to the client, deny is answered by the service, results loop back", async () => {
    const id = await h.session();
    h.openai.enqueue(openAiReply({ calls: THREE_CALLS }));
    const r = await execute(id, turn("look around"));
    assert.equal(r.status, 200);
    assert.equal(r.body.status, "awaiting_tool");
    assert.deepEqual(r.body.allowed_continuations, ["tool_results", "inject", "break"]);
    const requests = r.body.data.tool_requests;
    assert.deepEqual(
      requests.map((
        q: { name: string; requires_approval: string },
      ) => [q.name, q.requires_approval]),
      [["read_file", "allow"], ["shell", "ask"]],
    );
    // Tools denied by policy are not offered to the model.
    const offered = (h.openai.requests[0].json as { tools: { function: { name: string } }[] }).tools
      .map((t) => t.function.name);
    assert.ok(offered.includes("read_file") && !offered.includes("write_file"));

    // A missing call_id is refused and the checkpoint is kept.
    const bad = await cont(id, {
      type: "tool_results",
      data: { results: [{ call_id: requests[0].call_id, content: "a", is_error: false }] },
    });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.error.code, "invalid_request");
    const mismatch = await cont(id, {
      type: "approval_decisions",
      data: { decisions: [{ approval_id: "x", decision: "approved" }] },
    });
    assert.equal(mismatch.body.error.code, "continuation_mismatch");

    h.openai.enqueue(openAiReply({ text: "done" }));
    const done = await cont(id, {
      type: "tool_results",
      data: {
        results: [
          { call_id: requests[0].call_id, content: "file a", is_error: false },
          { call_id: requests[1].call_id, content: "a.ts", is_error: false, decision: "approved" },
        ],
      },
    });
    assert.equal(done.status, 200);
    assert.equal(done.body.status, "completed");
    const sent = JSON.stringify(h.openai.requests.at(-1)!.json);
    assert.ok(sent.includes("file a") && sent.includes("denied by policy"));

    const trace = await call(h.app, "GET", `/api/v1/sessions/${id}/traces?limit=500`, {
      token: h.alice.token,
    });
    const events = trace.body.trace.events;
    const approval = events.find((e: { event_type: string }) => e.event_type === "approval");
    assert.equal(approval.payload.plaintext.target_type, "tool_call");
    assert.equal(approval.payload.plaintext.target_id, requests[1].call_id);
    const statuses = events.filter((e: { event_type: string }) => e.event_type === "tool_call")
      .map((e: { payload: { plaintext: { status: string } } }) => e.payload.plaintext.status);
    assert.deepEqual(statuses, ["requested", "requested", "denied", "completed", "completed"]);
    // Trace payloads carry references, never bodies.
    assert.ok(!JSON.stringify(events).includes("file a"));

    const idle = await cont(id, { type: "break" });
    assert.equal(idle.status, 422);
    assert.equal(idle.body.error.code, "no_active_run");
  });

  test("a streamed turn announces client-bound calls and ends awaiting_tool", async () => {
    const id = await h.session();
    await h.openai.enqueueFixture("openai", "tool_call_streamed");
    const s = await callStream(
      h.app,
      `/api/v1/sessions/${id}/execute`,
      h.alice.token,
      turn("x"),
      KEY,
    );
    const types = s.events.map((e) => e.type);
    assert.deepEqual(types, ["tool_call_started", "usage", "tool_call_requested", "turn_end"]);
    assert.equal(s.events.at(-1).status, "awaiting_tool");
    assert.equal(s.events[2].call_id, s.events.at(-1).data.tool_requests[0].call_id);
    await cont(id, { type: "break" });
  });

  test("the memory tool is run by the service and recalled into the next turn's preamble", async () => {
    const id = await h.session();
    h.openai.enqueue(openAiReply({
      calls: [{
        name: "memory",
        arguments: { op: "record", scope: "user", key: "editor", value: "vim" },
      }],
    }));
    h.openai.enqueue(openAiReply({ text: "noted" }));
    const r = await execute(id, turn("remember I use vim"));
    assert.equal(r.body.status, "completed");
    assert.equal(h.openai.requests.length, 2);
    assert.ok(JSON.stringify(h.openai.requests[1].json).includes("recorded in user memory"));
    h.openai.enqueue(openAiReply({ text: "vim it is" }));
    const next = await execute(await h.session(), turn("which editor?"));
    assert.ok(next.body.data.context.included.includes("memory user:editor"));
    assert.ok(JSON.stringify(h.openai.requests.at(-1)!.json).includes("vim"));
  });
});

describe("provider tool-call ids", () => {
  test("the provider gets back the ids it gave its calls; the client sees the service's", async () => {
    const id = await h.session();
    h.openai.enqueue(openAiReply({ calls: THREE_CALLS.slice(0, 2) }));
    const paused = await execute(id, turn("look around"));
    assert.equal(paused.body.status, "awaiting_tool");
    const requests = paused.body.data.tool_requests as { call_id: string }[];
    for (const r of requests) assert.match(r.call_id, /^[0-9a-f-]{36}$/);
    h.openai.enqueue(openAiReply({ text: "done" }));
    const done = await cont(id, {
      type: "tool_results",
      data: { results: requests.map((r) => ({ call_id: r.call_id, content: "ok" })) },
    });
    assert.equal(done.body.status, "completed");
    const messages = (h.openai.requests[1].json as { messages: Record<string, unknown>[] })
      .messages;
    const assistant = messages.find((m) => m.role === "assistant") as {
      tool_calls: { id: string }[];
    };
    assert.deepEqual(assistant.tool_calls.map((c) => c.id), ["call_0", "call_1"]);
    const results = messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id);
    assert.deepEqual(results, ["call_0", "call_1"]);
  });
});

describe("memory and its permission", () => {
  const toolNames = (i: number): string[] =>
    ((h.openai.requests[i].json as { tools?: { function: { name: string } }[] }).tools ?? []).map((
      t: { function: { name: string } },
    ) => t.function.name);

  test("memory = deny takes the memory tool out of what the model is offered", async () => {
    const id = await h.session();
    h.openai.enqueue(openAiReply({ text: "ok" }));
    const denied = {
      ...policy,
      tools: { permissions: { ...policy.tools.permissions, memory: "deny" } },
    };
    const r = await execute(id, { input: { text: "hello" }, policy: denied });
    assert.equal(r.body.status, "completed");
    const offered = toolNames(h.openai.requests.length - 1);
    assert.ok(offered.includes("read_file"), "other tools are still offered");
    assert.ok(!offered.includes("memory"), `memory is not offered: ${offered.join(", ")}`);
  });

  test("the memory tool is offered when its permission allows it", async () => {
    const id = await h.session();
    h.openai.enqueue(openAiReply({ text: "ok" }));
    const allowed = {
      ...policy,
      tools: { permissions: { ...policy.tools.permissions, memory: "allow" } },
    };
    await execute(id, { input: { text: "hello" }, policy: allowed });
    assert.ok(toolNames(h.openai.requests.length - 1).includes("memory"));
  });

  test("a preview lists stored memory as discardable context, as the turn does", async () => {
    const id = await h.session();
    h.openai.enqueue(openAiReply({
      calls: [{
        name: "memory",
        arguments: { op: "record", scope: "session", key: "lang", value: "Rust" },
      }],
    }));
    h.openai.enqueue(openAiReply({ text: "noted" }));
    assert.equal((await execute(id, turn("remember Rust"))).body.status, "completed");
    const preview = await call(h.app, "POST", `/api/v1/sessions/${id}/preview`, {
      token: h.alice.token,
      body: turn("which language?"),
      headers: KEY,
    });
    assert.equal(preview.status, 200);
    assert.ok(
      preview.body.included_context.includes("memory session:lang"),
      JSON.stringify(preview.body.included_context),
    );
    h.openai.enqueue(openAiReply({ text: "Rust" }));
    const next = await execute(id, turn("which language?"));
    assert.ok(next.body.data.context.included.includes("memory session:lang"));
  });
});

describe("break, inject and execute on a waiting run", () => {
  test("break cancels the pending calls and the run goes idle", async () => {
    const id = await h.session();
    h.openai.enqueue(openAiReply({ calls: THREE_CALLS.slice(0, 1) }));
    await execute(id, turn("x"));
    const r = await cont(id, { type: "break" });
    assert.equal(r.status, 200);
    assert.equal(r.body.status, "idle");
    assert.deepEqual(r.body.allowed_continuations, []);
    const again = await cont(id, { type: "tool_results", data: { results: [] } });
    assert.equal(again.body.error.code, "no_active_run");
  });

  test("inject cancels the pending calls and starts a new turn on the injected text", async () => {
    const id = await h.session();
    h.openai.enqueue(openAiReply({ calls: THREE_CALLS.slice(0, 1) }));
    await execute(id, turn("x"));
    h.openai.enqueue(openAiReply({ text: "switched" }));
    const r = await cont(id, {
      type: "inject",
      data: { messages: [{ text: "actually," }, { text: "do y" }] },
    });
    assert.equal(r.status, 200);
    assert.equal(r.body.status, "completed");
    const sent = JSON.stringify(h.openai.requests.at(-1)!.json);
    assert.ok(sent.includes("actually,\\n\\ndo y"));
    assert.ok(sent.includes("cancelled"));
    const detail = await call(h.app, "GET", `/api/v1/sessions/${id}`, { token: h.alice.token });
    assert.deepEqual(
      detail.body.session.messages.map((m: { role: string }) => m.role),
      ["user", "user", "assistant"],
    );
  });

  test("execute supersedes a run waiting for tool results", async () => {
    const id = await h.session();
    h.openai.enqueue(openAiReply({ calls: THREE_CALLS.slice(0, 1) }));
    await execute(id, turn("x"));
    h.openai.enqueue(openAiReply({ text: "fresh" }));
    const r = await execute(id, turn("something else"));
    assert.equal(r.body.status, "completed");
  });
});
