import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { previewTurn } from "../../src/core/preview.ts";
import { CATALOG, request } from "./fixtures.ts";

const policy = {
  version: 1,
  source: "merged",
  classification: {
    default_intent: "chat",
    rules: [
      { intent: "review", keywords: ["review"], requires_any_context: ["git_diff"], priority: 10 },
      { intent: "edit", keywords: ["fix", "refactor"] },
    ],
  },
  routing: {
    default: { model: "anthropic/claude", fallbacks: ["ollama/llama3"] },
    rules: [
      {
        name: "review-diffs",
        intent: "review",
        paths: ["src/**"],
        model: "openai/gpt-4o",
        fallbacks: ["anthropic/claude"],
        required_permissions: { permissions: { shell: "deny" } },
      },
    ],
  },
  tools: { permissions: { file_read: "allow", shell: "ask" } },
  privacy: { restricted_paths: ["secrets/**"], remote: { mode: "allow" } },
};

const body = {
  input: { text: "please review my change" },
  workspace: {
    root: "/w",
    git_diff: "diff --git a/src/a.ts b/src/a.ts\n+1\n",
    referenced_paths: [],
  },
  policy,
  attachments: {
    files: [
      {
        path: "/w/src/a.ts",
        content: "x".repeat(4000),
        content_hash: "sha256:00",
        required: false,
      },
      { path: "secrets/token.txt", content: "abc" },
    ],
    instructions: [{ source: "AGENTS.md", content: "be nice" }],
  },
};

describe("preview", () => {
  test("returns exactly the preview body of interface.md", () => {
    const out = previewTurn({
      request: request(body),
      catalog: CATALOG,
      credential_providers: ["anthropic"],
      history: [{ label: 1, role: "user", content: "earlier" }],
      memory: [{ scope: "user", key: "editor", value: "vim" }],
    });
    assert.ok(out.ok, JSON.stringify(out));
    assert.deepEqual(out.value, {
      classification: {
        intent: "review",
        source: "inferred",
        reason: "keyword 'review' and context 'git_diff' matched rule 0",
        matched_rule: 0,
        confidence: "high",
      },
      routing: {
        intent: "review",
        provider: "anthropic",
        model: "claude",
        matched_rule: "review-diffs",
        fallback_used: true,
        override_used: false,
        reason:
          "rule 'review-diffs' matched on intent and path (fallback 1: openai/gpt-4o unavailable: missing credentials)",
      },
      included_context: [
        "instruction AGENTS.md",
        "file src/a.ts",
        "git diff",
        "message 1",
        "memory user:editor",
      ],
      excluded_context: ["file secrets/token.txt (restricted)"],
      // input: prompt 6 + instruction 2 + file 1000 + diff 9 + message 2 + memory 1 = 1020 tokens
      // 1909 input tokens at 3 USD a million: the context's 1020 and the 889 the service adds
      // itself (its system prompt, its tool definitions, the prompt message's framing).
      estimated_cost: { min: "0.005727", max: "0.128607", currency: "USD" },
      required_permissions: [
        { permission: "file_read", mode: "allow" },
        { permission: "shell", mode: "deny" },
      ],
    });
  });

  test("key order is fixed and the JSON is byte-identical across calls", () => {
    const input = () => ({
      request: request(body),
      catalog: CATALOG,
      credential_providers: ["openai"],
    });
    const a = previewTurn(input());
    const b = previewTurn(input());
    assert.ok(a.ok && b.ok);
    assert.equal(JSON.stringify(a.value), JSON.stringify(b.value));
    assert.deepEqual(Object.keys(a.value), [
      "classification",
      "routing",
      "included_context",
      "excluded_context",
      "estimated_cost",
      "required_permissions",
    ]);
    assert.deepEqual(Object.keys(a.value.routing), [
      "intent",
      "provider",
      "model",
      "matched_rule",
      "fallback_used",
      "override_used",
      "reason",
    ]);
    assert.deepEqual(Object.keys(a.value.classification), [
      "intent",
      "source",
      "reason",
      "matched_rule",
      "confidence",
    ]);
  });

  test("key order does not depend on the order of the request's keys", () => {
    const reversed = Object.fromEntries(Object.entries(body).reverse());
    const a = previewTurn({ request: request(body), catalog: CATALOG, credential_providers: [] });
    const b = previewTurn({
      request: request(reversed),
      catalog: CATALOG,
      credential_providers: [],
    });
    assert.equal(JSON.stringify(a), JSON.stringify(b));
  });

  test("default route with matched_rule null and a local model at zero cost", () => {
    const out = previewTurn({
      request: request({ ...body, input: { text: "hello there" } }),
      catalog: CATALOG,
      credential_providers: [],
    });
    assert.ok(out.ok);
    assert.equal(out.value.classification.matched_rule, null);
    assert.equal(out.value.routing.matched_rule, null);
    assert.equal(out.value.routing.provider, "ollama");
    assert.equal(
      out.value.routing.reason,
      "no rule matched; using the default route to 'anthropic/claude' (fallback 1: anthropic/claude unavailable: missing credentials)",
    );
    assert.deepEqual(out.value.estimated_cost, { min: "0", max: "0", currency: "USD" });
    // a local model may see restricted content
    assert.ok(out.value.included_context.includes("file secrets/token.txt"));
    assert.deepEqual(out.value.required_permissions, [
      { permission: "file_read", mode: "allow" },
      { permission: "shell", mode: "ask" },
    ]);
  });

  test("explicit command and override appear in the body", () => {
    const out = previewTurn({
      request: request({
        ...body,
        input: { text: "x", command: "plan", explicit_model: "openai/gpt-4o" },
      }),
      catalog: CATALOG,
      credential_providers: ["openai"],
    });
    assert.ok(out.ok);
    assert.deepEqual(out.value.classification, {
      intent: "plan",
      source: "explicit",
      reason: "explicit command 'plan'",
      matched_rule: null,
    });
    assert.equal(out.value.routing.intent, "plan");
    assert.equal(out.value.routing.override_used, true);
    assert.equal(out.value.routing.reason, "explicit model override 'openai/gpt-4o'");
  });

  test("routing refusals come back as failures", () => {
    const noRoute = previewTurn({
      request: request({ input: { text: "x" } }),
      catalog: CATALOG,
      credential_providers: [],
    });
    assert.equal(noRoute.ok ? "ok" : noRoute.failure.code, "no_route");
    const unknown = previewTurn({
      request: request({ input: { text: "x", explicit_model: "mistral/large" } }),
      catalog: CATALOG,
      credential_providers: [],
      known_providers: ["openai", "anthropic", "ollama", "mistral"],
    });
    assert.equal(unknown.ok ? "ok" : unknown.failure.code, "unknown_model");
  });
});
