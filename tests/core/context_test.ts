import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { contextItems, describeItem, requiredTokens } from "../../src/core/context_items.ts";
import { excludedStrings, fillContext, includedStrings } from "../../src/core/context_fill.ts";
import { constrainedPathMatcher } from "../../src/core/privacy.ts";
import type { HistoryMessage, MemoryEntry, ToolExchange } from "../../src/core/run_items.ts";
import { estimateTokens } from "../../src/core/tokens.ts";
import { model, request } from "./fixtures.ts";

describe("token estimate", () => {
  const cases: [string, number][] = [["", 0], ["a", 1], ["abcd", 1], [
    "abcde",
    2,
  ], [
    "😀😀😀😀😀",
    2,
  ], ["日本語の文", 2]];
  for (const [text, n] of cases) {
    test(`${JSON.stringify(text)} is ${n} tokens`, () => assert.equal(estimateTokens(text), n));
  }
});

const t = (n: number) => "x".repeat(n * 4); // exactly n tokens

function build(
  body: Record<string, unknown>,
  run: {
    history?: HistoryMessage[];
    memory?: MemoryEntry[];
    tool_exchanges?: ToolExchange[];
  } = {},
) {
  const req = request(body);
  return {
    req,
    items: contextItems(req, constrainedPathMatcher(req.policy), run),
  };
}

const body = {
  input: { text: "" },
  workspace: {
    referenced_paths: ["src/ref.ts"],
    git_diff: "diff --git a/src/a.ts b/src/a.ts\n",
  },
  policy: { privacy: { restricted_paths: ["secrets/**"] } },
  attachments: {
    files: [
      { path: "src/opt.ts", content: t(1) },
      { path: "src/ref.ts", content: t(1) },
      { path: "src/req.ts", content: t(1), required: true },
      { path: "./src/opt.ts", content: t(1) },
      { path: "secrets/k.txt", content: t(1) },
    ],
    instructions: [{ source: "AGENTS.md", content: t(1) }],
    invoked_skills: [{ name: "deploy", content: t(1) }],
    available_skills: [{ name: "deploy", content: t(1) }, {
      name: "lint",
      content: t(1),
    }],
  },
};
const run = {
  history: [
    { label: 1, role: "user", content: t(1) },
    { label: 2, role: "assistant", content: t(1), constrained: true },
    { label: 3, role: "user", content: t(1) },
  ],
  memory: [{ scope: "user" as const, key: "editor", value: t(1) }, {
    scope: "user" as const,
    key: "editor",
    value: "",
  }],
  tool_exchanges: [{
    call_id: "call_1",
    name: "read_file",
    arguments: { path: "src/x.ts" },
    result: "ok",
  }],
};

describe("context candidates", () => {
  test("required first, then discardable in fill priority", () => {
    const { items } = build(body, run);
    assert.deepEqual(items.map(describeItem), [
      "instruction AGENTS.md",
      "skill deploy",
      "file src/ref.ts",
      "file src/req.ts",
      "tool_call read_file src/x.ts",
      "file src/opt.ts",
      "file src/opt.ts",
      "file secrets/k.txt",
      "git diff",
      "message 3",
      "message 2",
      "message 1",
      "memory user:editor",
      "memory user:editor",
      "skill deploy",
      "skill lint",
    ]);
    assert.deepEqual(items.filter((i) => i.duplicate).map(describeItem), [
      "file src/opt.ts",
      "memory user:editor",
      "skill deploy",
    ]);
    assert.deepEqual(items.filter((i) => i.constrained).map(describeItem), [
      "file secrets/k.txt",
      "message 2",
    ]);
  });

  test("required tokens count the prompt and required items", () => {
    const { items } = build({ ...body, input: { text: t(3) } }, run);
    const toolTokens = items.find((i) => i.kind === "tool_call")!.tokens;
    assert.equal(requiredTokens(items, t(3)), 3 + 4 + toolTokens);
  });
});

describe("context fill", () => {
  test("remote model: restricted, duplicate; everything else fits", () => {
    const { req, items } = build(body, run);
    const out = fillContext(items, model("openai/gpt-4o"), req.policy, 0);
    assert.ok(out.ok);
    assert.deepEqual(includedStrings(out.value), [
      "instruction AGENTS.md",
      "skill deploy",
      "file src/ref.ts",
      "file src/req.ts",
      "tool_call read_file src/x.ts",
      "file src/opt.ts",
      "git diff",
      "message 3",
      "message 1",
      "memory user:editor",
      "skill lint",
    ]);
    assert.deepEqual(excludedStrings(out.value), [
      "file src/opt.ts (duplicate)",
      "file secrets/k.txt (restricted)",
      "message 2 (restricted)",
      "memory user:editor (duplicate)",
      "skill deploy (duplicate)",
    ]);
  });

  test("local model keeps constrained content", () => {
    const { req, items } = build(body, run);
    const out = fillContext(
      items,
      model("ollama/x", { local: true }),
      req.policy,
      0,
    );
    assert.ok(out.ok);
    assert.ok(includedStrings(out.value).includes("file secrets/k.txt"));
    assert.ok(includedStrings(out.value).includes("message 2"));
  });

  test("local mode deny leaves discardable workspace content out of local prompts", () => {
    const { req, items } = build({
      ...body,
      policy: { privacy: { local: { mode: "deny" } } },
    }, {});
    const out = fillContext(
      items,
      model("ollama/x", { local: true }),
      req.policy,
      0,
    );
    assert.ok(out.ok);
    assert.deepEqual(
      excludedStrings(out.value).filter((s) => s.endsWith("(local mode deny)")),
      [
        "file src/opt.ts (local mode deny)",
        "file secrets/k.txt (local mode deny)",
        "git diff (local mode deny)",
      ],
    );
  });

  test("discardable items fill while they fit, then the rest is over budget", () => {
    const { req, items } = build({
      input: { text: t(2) },
      attachments: {
        files: [],
        instructions: [{ source: "A", content: t(2) }],
      },
    }, {
      history: [
        { label: 1, role: "user", content: t(1) },
        { label: 2, role: "user", content: t(3) },
        { label: 3, role: "user", content: t(2) },
      ],
    });
    // budget = 12 - 4 = 8: prompt 2 + instruction 2 + message 3 (2) fit; message 2 (3) does not;
    // message 1 (1) would fit but filling stopped.
    const m = model("x/y", { max_context_tokens: 12, max_output_tokens: 4 });
    const out = fillContext(items, m, req.policy, 2);
    assert.ok(out.ok);
    assert.deepEqual(includedStrings(out.value), [
      "instruction A",
      "message 3",
    ]);
    assert.deepEqual(excludedStrings(out.value), [
      "message 2 (over budget)",
      "message 1 (over budget)",
    ]);
    assert.equal(out.value.input_tokens, 6);
  });

  test("required items that do not fit are context_window_exceeded", () => {
    const { req, items } = build({
      input: { text: t(2) },
      attachments: {
        files: [{ path: "a", content: t(7), required: true }],
        instructions: [],
      },
    });
    const m = model("x/y", { max_context_tokens: 12, max_output_tokens: 4 });
    const out = fillContext(items, m, req.policy, 2);
    assert.equal(out.ok ? "ok" : out.failure.code, "context_window_exceeded");
    const exact = fillContext(
      items,
      model("x/y", { max_context_tokens: 13, max_output_tokens: 4 }),
      req.policy,
      2,
    );
    assert.ok(exact.ok, "9 tokens fit a budget of 9");
  });

  test("without max_output_tokens the reply reserve is 4096", () => {
    const { req, items } = build({
      input: { text: "" },
      attachments: { files: [{ path: "a", content: t(5) }], instructions: [] },
    });
    const out = fillContext(
      items,
      model("x/y", { max_context_tokens: 4100, max_output_tokens: null }),
      req.policy,
      0,
    );
    assert.ok(out.ok);
    assert.deepEqual(excludedStrings(out.value), ["file a (over budget)"]);
  });
});
