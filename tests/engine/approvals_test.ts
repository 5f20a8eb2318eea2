/**
 * Standalone approvals end to end (decisions.md §5–§7): remote disclosure,
 * cost limit and plan, each paused with its detail, then approved or rejected.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { call } from "../support/app.ts";
import { callStream, engineHarness, openAiReply, openAiStream } from "../support/engine_app.ts";

const h = engineHarness();
const KEY = { "x-router-provider-openai-api-key": "sk-test-openai" };

const execute = (id: string, body: unknown) =>
  call(h.app, "POST", `/api/v1/sessions/${id}/execute`, {
    token: h.alice.token,
    body,
    headers: KEY,
  });
const decide = (id: string, approvalId: string, decision: string) =>
  call(h.app, "POST", `/api/v1/sessions/${id}/continue`, {
    token: h.alice.token,
    headers: KEY,
    body: {
      type: "approval_decisions",
      data: { decisions: [{ approval_id: approvalId, decision }] },
    },
  });

const route = { default: { model: "openai/gpt-4o-mini" }, rules: [] };
const withFile = (mode: string) => ({
  input: { text: "review this" },
  policy: { routing: route, privacy: { remote: { mode } } },
  attachments: {
    files: [{
      path: "src/a.ts",
      content: "const a = 1;",
      content_hash: "sha256:00",
      required: true,
    }],
    instructions: [],
  },
});

describe("remote disclosure", () => {
  test("ask mode pauses before sending workspace files; approval sends them", async () => {
    const id = await h.session();
    const r = await execute(id, withFile("ask"));
    assert.equal(r.status, 200);
    assert.equal(r.body.status, "awaiting_approval");
    assert.deepEqual(r.body.allowed_continuations, ["approval_decisions", "inject", "break"]);
    const approval = r.body.data.approval;
    assert.equal(approval.kind, "remote_disclosure");
    assert.deepEqual(approval.detail, {
      provider: "openai",
      model: "gpt-4o-mini",
      paths: ["src/a.ts"],
    });
    assert.equal(h.openai.requests.length, 0);
    h.openai.enqueue(openAiReply({ text: "looks fine" }));
    const done = await decide(id, approval.approval_id, "approved");
    assert.equal(done.body.status, "completed");
    assert.ok(JSON.stringify(h.openai.requests[0].json).includes("const a = 1;"));
    const trace = await call(h.app, "GET", `/api/v1/sessions/${id}/traces?limit=500`, {
      token: h.alice.token,
    });
    const event = trace.body.trace.events.find((e: { event_type: string }) =>
      e.event_type === "approval"
    );
    assert.deepEqual(
      [event.payload.plaintext.target_type, event.payload.plaintext.decision],
      ["remote_disclosure", "approved"],
    );
  });

  test("a rejected disclosure ends the run idle and nothing is sent", async () => {
    const id = await h.session();
    const r = await execute(id, withFile("ask"));
    const done = await decide(id, r.body.data.approval.approval_id, "rejected");
    assert.equal(done.body.status, "idle");
    assert.equal(h.openai.requests.length, 0);
  });

  test("allow mode sends without asking", async () => {
    const id = await h.session();
    h.openai.enqueue(openAiReply({ text: "ok" }));
    assert.equal((await execute(id, withFile("allow"))).body.status, "completed");
  });
});

describe("cost limit", () => {
  const body = {
    input: { text: "big job" },
    policy: {
      routing: {
        rules: [{ name: "pricey", model: "openai/gpt-4o", cost_limit: "0.01" }],
      },
      privacy: { remote: { mode: "allow" } },
    },
  };

  test("an estimate above the rule's limit pauses; approval calls the model", async () => {
    const id = await h.session();
    const r = await execute(id, body);
    assert.equal(r.body.status, "awaiting_approval");
    const approval = r.body.data.approval;
    assert.equal(approval.kind, "cost_limit");
    assert.equal(approval.detail.limit, "0.01");
    assert.equal(approval.detail.provider, "openai");
    assert.equal(approval.detail.currency, "USD");
    h.openai.enqueue(openAiReply({ text: "spent" }));
    const done = await decide(id, approval.approval_id, "approved");
    assert.equal(done.body.status, "completed");
    assert.equal(done.body.data.routing.matched_rule, "pricey");
  });

  test("rejected, the run goes idle and nothing is spent", async () => {
    const id = await h.session();
    const r = await execute(id, body);
    const done = await decide(id, r.body.data.approval.approval_id, "rejected");
    assert.equal(done.body.status, "idle");
    assert.equal(h.openai.requests.length, 0);
    const usage = await call(h.app, "GET", `/api/v1/sessions/${id}/usage`, {
      token: h.alice.token,
    });
    assert.deepEqual(usage.body.by_model, []);
  });
});

describe("plan mode", () => {
  const body = {
    input: { text: "plan the refactor", command: "plan" },
    policy: { routing: route, privacy: { remote: { mode: "allow" } } },
  };

  test("a reply without tool calls becomes a plan; approved, the run goes on as an ordinary turn", async () => {
    const id = await h.session();
    h.openai.enqueue(openAiStream(["1. split", " 2. test"]));
    const s = await callStream(h.app, `/api/v1/sessions/${id}/execute`, h.alice.token, body, KEY);
    const end = s.events.at(-1);
    assert.equal(end.status, "awaiting_approval");
    assert.equal(end.data.approval.kind, "plan");
    assert.equal(end.data.approval.detail.plan, "1. split 2. test");
    // Writes are not offered in plan mode.
    const offered = JSON.stringify(h.openai.requests[0].json);
    assert.ok(!offered.includes("write_file"));
    h.openai.enqueue(openAiReply({ text: "done as planned" }));
    const done = await decide(id, end.data.approval.approval_id, "approved");
    assert.equal(done.body.status, "completed");
    assert.ok(JSON.stringify(h.openai.requests[1].json).includes("write_file"));
  });

  test("a rejected plan ends the run idle", async () => {
    const id = await h.session();
    h.openai.enqueue(openAiReply({ text: "a plan" }));
    const r = await execute(id, body);
    const done = await decide(id, r.body.data.approval.approval_id, "rejected");
    assert.equal(done.body.status, "idle");
    assert.equal(h.openai.requests.length, 1);
  });
});
