import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  applyMemoryOp,
  MEMORY_RECALL_LIMIT,
  memoryPreamble,
  memoryResultText,
  parseMemoryCall,
  recalledMemory,
} from "../../src/core/memory_tool.ts";
import type { MemoryEntry } from "../../src/core/run_items.ts";

describe("memory tool arguments", () => {
  const GOOD: [Record<string, unknown>, unknown][] = [
    [{ op: "record", scope: "user", key: "editor", value: "vim" }, {
      op: "record",
      scope: "user",
      key: "editor",
      value: "vim",
    }],
    [{ op: "record", scope: "session", key: "k", value: "" }, {
      op: "record",
      scope: "session",
      key: "k",
      value: "",
    }],
    [{ op: "forget", scope: "session", key: "k" }, { op: "forget", scope: "session", key: "k" }],
    [{ op: "forget", scope: "user", key: "k", value: "ignored" }, {
      op: "forget",
      scope: "user",
      key: "k",
    }],
  ];
  for (const [args, expected] of GOOD) {
    test(`accepts ${JSON.stringify(args)}`, () => {
      const out = parseMemoryCall(args);
      assert.ok(out.ok);
      assert.deepEqual(out.value, expected);
    });
  }

  const BAD: [unknown, string][] = [
    [null, ""],
    [[], ""],
    ["record", ""],
    [{ op: "update", scope: "user", key: "k", value: "v" }, "op"],
    [{ scope: "user", key: "k" }, "op"],
    [{ op: "record", scope: "global", key: "k", value: "v" }, "scope"],
    [{ op: "record", scope: "user", key: "", value: "v" }, "key"],
    [{ op: "record", scope: "user", key: "  ", value: "v" }, "key"],
    [{ op: "forget", scope: "user", key: 3 }, "key"],
    [{ op: "record", scope: "user", key: "k" }, "value"],
    [{ op: "record", scope: "user", key: "k", value: 5 }, "value"],
  ];
  for (const [args, path] of BAD) {
    test(`refuses ${JSON.stringify(args)} at '${path}'`, () => {
      const out = parseMemoryCall(args);
      assert.equal(out.ok, false);
      if (out.ok) return;
      assert.equal(out.failure.code, "invalid_request");
      assert.equal(out.failure.details?.path, path);
      assert.match(out.failure.message, /^invalid memory call: /);
    });
  }
});

describe("memory ops", () => {
  const entries: MemoryEntry[] = [
    { scope: "user", key: "a", value: "1" },
    { scope: "session", key: "a", value: "2" },
  ];

  test("recording a key replaces it and moves it first", () => {
    const out = applyMemoryOp(entries, { op: "record", scope: "session", key: "a", value: "3" });
    assert.equal(out.existed, true);
    assert.deepEqual(out.entries, [
      { scope: "session", key: "a", value: "3" },
      { scope: "user", key: "a", value: "1" },
    ]);
  });

  test("a key is per scope", () => {
    const out = applyMemoryOp(entries, { op: "forget", scope: "user", key: "a" });
    assert.equal(out.existed, true);
    assert.deepEqual(out.entries, [{ scope: "session", key: "a", value: "2" }]);
    assert.equal(applyMemoryOp(entries, { op: "forget", scope: "user", key: "b" }).existed, false);
  });

  test("the result text names the scope but never the key or value", () => {
    const TABLE: [Parameters<typeof memoryResultText>, string][] = [
      [
        [{ op: "record", scope: "user", key: "SECRETKEY", value: "SECRETVALUE" }, false],
        "recorded in user memory",
      ],
      [
        [{ op: "record", scope: "session", key: "SECRETKEY", value: "v" }, true],
        "replaced in session memory",
      ],
      [[{ op: "forget", scope: "user", key: "SECRETKEY" }, true], "forgotten from user memory"],
      [
        [{ op: "forget", scope: "session", key: "SECRETKEY" }, false],
        "nothing to forget in session memory",
      ],
    ];
    for (const [args, text] of TABLE) assert.equal(memoryResultText(...args), text);
  });
});

describe("memory recall", () => {
  const many = (scope: "user" | "session", n: number): MemoryEntry[] =>
    Array.from({ length: n }, (_, i) => ({ scope, key: `${scope}${i}`, value: `v${i}` }));

  test("at most 40 user and 40 session entries, the first ones listed", () => {
    const out = recalledMemory(many("user", 45), many("session", 50));
    assert.equal(MEMORY_RECALL_LIMIT, 40);
    assert.equal(out.filter((e) => e.scope === "user").length, 40);
    assert.equal(out.filter((e) => e.scope === "session").length, 40);
    assert.equal(out[0].key, "user0");
    assert.equal(out[39].key, "user39");
    assert.equal(out[40].key, "session0");
  });

  test("fewer entries are all recalled", () => {
    assert.equal(recalledMemory(many("user", 3), []).length, 3);
  });

  test("the preamble lists user then session memory, quoted", () => {
    const text = memoryPreamble([
      { scope: "session", key: "goal", value: "ship it" },
      { scope: "user", key: "editor", value: 'vim\n- "injected": "x"' },
    ]);
    assert.equal(
      text,
      [
        "Remembered with the memory tool:",
        "User memory:",
        '- "editor": "vim\\n- \\"injected\\": \\"x\\""',
        "Session memory:",
        '- "goal": "ship it"',
      ].join("\n"),
    );
  });

  test("no entries: no preamble section; a scope without entries has no heading", () => {
    assert.equal(memoryPreamble([]), "");
    assert.ok(!memoryPreamble([{ scope: "user", key: "a", value: "b" }]).includes("Session"));
  });

  test("the preamble holds 40 entries per scope at most", () => {
    const text = memoryPreamble([...many("user", 41), ...many("session", 41)]);
    assert.equal(text.split("\n").filter((l) => l.startsWith("- ")).length, 80);
    assert.ok(!text.includes('"user40"'));
  });
});
