import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { constrainedPathMatcher, pathsNeedingApproval } from "../../src/core/privacy.ts";
import { localModelsBarred, localRequirement } from "../../src/core/locality.ts";
import { contextItems } from "../../src/core/context_items.ts";
import { request } from "./fixtures.ts";

const policy = {
  privacy: { restricted_paths: ["secrets/**"], remote: { blocked_paths: [".env"] } },
  routing: {
    rules: [
      { name: "internal", model: "ollama/llama3", local_only: true, paths: ["internal/**"] },
      { name: "docs", model: "openai/gpt-4o", paths: ["docs/**"] },
    ],
  },
};

describe("constrained paths", () => {
  const m = constrainedPathMatcher(request({ policy }).policy);
  const cases: [string, boolean][] = [
    ["secrets/key.pem", true],
    ["config/.env", true],
    ["internal/x.ts", true],
    ["docs/a.md", false], // paths of a rule that is not local_only
    ["src/a.ts", false],
  ];
  for (const [path, expected] of cases) {
    test(`${path} is ${expected ? "" : "not "}constrained`, () => assert.equal(m(path), expected));
  }
  test("an invalid restricted glob constrains everything", () => {
    const bad = constrainedPathMatcher(
      request({ policy: { privacy: { restricted_paths: ["[x"] } } }).policy,
    );
    assert.equal(bad("src/a.ts"), true);
  });
});

function items(body: Record<string, unknown>, tools: unknown[] = []) {
  const req = request(body);
  return {
    req,
    items: contextItems(req, constrainedPathMatcher(req.policy), {
      tool_exchanges: tools as never,
    }),
  };
}

describe("local requirement", () => {
  test("none when nothing asks for it", () => {
    const { req, items: it } = items({ policy });
    assert.deepEqual(localRequirement(req, it, null), []);
  });

  test("all five sources, in order", () => {
    const { req, items: it } = items({
      policy: { ...policy, privacy: { ...policy.privacy, remote: { mode: "deny" } } },
      local_preferences: { local_only: true, no_network: true },
      attachments: {
        files: [{ path: "secrets/k.pem", content: "k", required: true }],
        instructions: [],
      },
    });
    const rule = req.policy.routing.rules[0];
    assert.deepEqual(localRequirement(req, it, rule), [
      "constrained required content",
      "local_only preference",
      "no_network preference",
      "local_only rule",
      "remote mode deny",
    ]);
  });

  test("a referenced path makes an attached file required", () => {
    const { req, items: it } = items({
      policy,
      workspace: { referenced_paths: ["./secrets/k.pem"] },
      attachments: { files: [{ path: "secrets/k.pem", content: "k" }], instructions: [] },
    });
    assert.deepEqual(localRequirement(req, it, null), ["constrained required content"]);
  });

  test("discardable constrained content does not require local", () => {
    const { req, items: it } = items({
      policy,
      workspace: { git_diff: "diff --git a/secrets/k b/secrets/k\n" },
      attachments: { files: [{ path: "secrets/k.pem", content: "k" }], instructions: [] },
    });
    assert.deepEqual(localRequirement(req, it, null), []);
  });

  test("a tool result on a constrained path is required constrained content", () => {
    const { req, items: it } = items({ policy }, [
      { call_id: "c1", name: "read_file", arguments: { path: ".env" }, result: "X=1" },
    ]);
    assert.deepEqual(localRequirement(req, it, null), ["constrained required content"]);
  });
});

describe("local mode deny", () => {
  test("bars local models only when workspace content is required", () => {
    const deny = { privacy: { local: { mode: "deny" } } };
    const withFile = items({
      policy: deny,
      attachments: { files: [{ path: "a.ts", content: "x", required: true }], instructions: [] },
    });
    assert.equal(localModelsBarred(withFile.req, withFile.items), true);
    const discardable = items({
      policy: deny,
      attachments: {
        files: [{ path: "a.ts", content: "x" }],
        instructions: [{ source: "A", content: "" }],
      },
    });
    assert.equal(localModelsBarred(discardable.req, discardable.items), false);
    const allow = items({
      attachments: { files: [{ path: "a.ts", content: "x", required: true }], instructions: [] },
    });
    assert.equal(localModelsBarred(allow.req, allow.items), false);
  });
});

describe("paths needing approval", () => {
  const ask = request({ policy: { privacy: { remote: { mode: "ask" }, local: { mode: "ask" } } } });
  const allow = request({ policy: { privacy: { remote: { mode: "allow" } } } });
  test("remote ask lists included workspace paths not yet approved, once each", () => {
    assert.deepEqual(
      pathsNeedingApproval(ask.policy, false, ["a.ts", "b.ts", "a.ts"], new Set(["b.ts"])),
      ["a.ts"],
    );
  });
  test("allow needs nothing; local models follow the local mode", () => {
    assert.deepEqual(pathsNeedingApproval(allow.policy, false, ["a.ts"]), []);
    assert.deepEqual(pathsNeedingApproval(allow.policy, true, ["a.ts"]), []);
    assert.deepEqual(pathsNeedingApproval(ask.policy, true, ["a.ts"]), ["a.ts"]);
  });
  test("nothing from workspace paths, nothing to approve", () => {
    assert.deepEqual(pathsNeedingApproval(ask.policy, false, []), []);
  });
});
