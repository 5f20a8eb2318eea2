import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { toolCallTracePayload } from "../../src/core/tool_mediation.ts";
import { toolCallLabel, traceArguments } from "../../src/core/tool_call_label.ts";

describe("tool call labels", () => {
  test("a label names the tool and the argument that says what it touches", () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ["read_file", { path: "README.md" }, "read_file README.md"],
      ["Read", { file_path: "/w/src/x.ts", limit: 20 }, "Read /w/src/x.ts"],
      ["shell", { command: "npm  test\n--watch" }, "shell npm test --watch"],
      ["fetch", { url: "https://example.com" }, "fetch https://example.com"],
      ["grep", { paths: ["a.ts", "b.ts"] }, "grep a.ts, b.ts"],
      ["deploy", {}, "deploy"],
      [
        "deploy",
        { target: "prod", dry: true },
        'deploy {"target":"prod","dry":true}',
      ],
    ];
    for (const [name, args, label] of cases) {
      assert.equal(toolCallLabel(name, args), label);
    }
  });

  test("a long subject is cut at 80 code points, never inside a surrogate pair", () => {
    const label = toolCallLabel("shell", { command: "😀".repeat(100) });
    assert.equal(label, `shell ${"😀".repeat(80)}…`);
  });

  test("a trace keeps the arguments cut short", () => {
    const kept = traceArguments({
      path: "a.ts",
      content: "x".repeat(500),
      list: Array.from({ length: 30 }, (_, i) => i),
      deep: { a: { b: { c: { d: 1 } } } },
    });
    assert.equal(kept.path, "a.ts");
    assert.equal(kept.content, `${"x".repeat(200)}…`);
    assert.equal((kept.list as number[]).length, 20);
    assert.deepEqual(kept.deep, { a: { b: { c: "…" } } });
  });

  test("the trace payload carries arguments only when given", () => {
    assert.deepEqual(toolCallTracePayload("1", "read_file", "requested"), {
      type: "tool_call",
      call_id: "1",
      tool_name: "read_file",
      status: "requested",
    });
    assert.deepEqual(
      toolCallTracePayload("1", "read_file", "requested", { path: "README.md" })
        .arguments,
      { path: "README.md" },
    );
  });
});
