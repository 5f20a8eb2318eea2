import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { availableContextKinds, classify } from "../../src/core/classification.ts";
import { request } from "./fixtures.ts";

function classifyWith(text: string, rules: unknown[], extra: Record<string, unknown> = {}) {
  return classify(
    request({
      input: { text },
      policy: { classification: { rules, ...extra } },
      ...extraWorkspace(extra),
    }),
  );
}

function extraWorkspace(extra: Record<string, unknown>) {
  return extra.workspace === undefined ? {} : { workspace: extra.workspace };
}

const DIFF = "diff --git a/src/a.ts b/src/a.ts\n+x\n";

describe("classification", () => {
  test("an explicit command wins, without confidence, matched_rule null", () => {
    const r = classify(request({
      input: { text: "review this", command: "edit" },
      policy: { classification: { rules: [{ intent: "review", keywords: ["review"] }] } },
    }));
    assert.deepEqual(r, {
      intent: "edit",
      source: "explicit",
      reason: "explicit command 'edit'",
      matched_rule: null,
    });
    assert.equal("confidence" in r, false);
  });

  test("no rule matched gives the default intent, low confidence", () => {
    const r = classifyWith("hello", [{ intent: "review", keywords: ["review"] }], {
      default_intent: "plan",
    });
    assert.deepEqual(r, {
      intent: "plan",
      source: "inferred",
      reason: "no rule matched; default intent 'plan'",
      matched_rule: null,
      confidence: "low",
    });
  });

  test("rules go by ascending priority; matched_rule is the index as sent", () => {
    const r = classifyWith("review and plan", [
      { intent: "plan", keywords: ["plan"], priority: 20 },
      { intent: "review", keywords: ["review"], priority: 10 },
    ]);
    assert.equal(r.intent, "review");
    assert.equal(r.matched_rule, 1);
    assert.equal(r.reason, "keyword 'review' matched rule 1");
    assert.equal(r.confidence, "medium");
  });

  test("equal priorities keep their given order; default priority is 1000", () => {
    const r = classifyWith("review and plan", [
      { intent: "plan", keywords: ["plan"] },
      { intent: "review", keywords: ["review"], priority: 1000 },
    ]);
    assert.equal(r.intent, "plan");
    assert.equal(r.matched_rule, 0);
    const later = classifyWith("review and plan", [
      { intent: "plan", keywords: ["plan"] },
      { intent: "review", keywords: ["review"], priority: 999 },
    ]);
    assert.equal(later.matched_rule, 1);
  });

  test("keyword and context both matched: high; reason names both", () => {
    const r = classifyWith("please review", [
      {
        intent: "review",
        keywords: ["check", "review"],
        requires_any_context: ["pull_request", "git_diff"],
      },
    ], { workspace: { git_diff: DIFF } });
    assert.equal(r.reason, "keyword 'review' and context 'git_diff' matched rule 0");
    assert.equal(r.confidence, "high");
  });

  test("keyword by typo and context: medium", () => {
    const r = classifyWith("please reveiw", [
      { intent: "review", keywords: ["review"], requires_any_context: ["git_diff"] },
    ], { workspace: { git_diff: DIFF } });
    assert.equal(r.intent, "review");
    assert.equal(r.reason, "keyword 'review' and context 'git_diff' matched rule 0");
    assert.equal(r.confidence, "medium");
  });

  test("context alone: medium; the keyword condition must hold when present", () => {
    const r = classifyWith("hello", [
      { intent: "review", keywords: ["review"], requires_any_context: ["git_diff"] },
      { intent: "edit", requires_any_context: ["active_file"] },
    ], { workspace: { git_diff: DIFF, active_file: "src/a.ts" } });
    assert.equal(r.intent, "edit");
    assert.equal(r.reason, "context 'active_file' matched rule 1");
    assert.equal(r.confidence, "medium");
  });

  test("a rule without conditions is a catch-all with low confidence", () => {
    const r = classifyWith("anything", [{ intent: "review", keywords: ["review"] }, {
      intent: "edit",
    }]);
    assert.equal(r.reason, "catch-all rule 1 matched");
    assert.equal(r.confidence, "low");
    assert.equal(r.matched_rule, 1);
  });

  test("empty keyword and context lists count as absent", () => {
    const r = classifyWith("anything", [{
      intent: "plan",
      keywords: [],
      requires_any_context: [],
    }]);
    assert.equal(r.reason, "catch-all rule 0 matched");
  });

  test("an unavailable context fails the rule", () => {
    const r = classifyWith("review", [
      { intent: "review", keywords: ["review"], requires_any_context: ["pull_request"] },
    ]);
    assert.equal(r.matched_rule, null);
  });

  test("a typo match works when nothing matches exactly", () => {
    const r = classifyWith("please depoly it", [{ intent: "edit", keywords: ["deploy"] }]);
    assert.equal(r.intent, "edit");
    assert.equal(r.reason, "keyword 'deploy' matched rule 0");
    assert.equal(r.confidence, "medium");
  });

  test("an exact keyword of a later rule beats a typo of an earlier rule", () => {
    const r = classifyWith("refactor the desing", [
      { intent: "plan", keywords: ["design"], priority: 1 },
      { intent: "edit", keywords: ["refactor"], priority: 2 },
    ]);
    assert.equal(r.intent, "edit");
    assert.equal(r.matched_rule, 1);
  });

  test("within a rule, an exact keyword is reported over an earlier typo keyword", () => {
    const r = classifyWith("refactr and review", [
      { intent: "review", keywords: ["refactor", "review"] },
    ]);
    assert.equal(r.reason, "keyword 'review' matched rule 0");
  });

  test("priority still rules when an exact match exists: a catch-all before it wins", () => {
    const r = classifyWith("reveiw and refactor", [
      { intent: "review", keywords: ["review"], priority: 1 },
      { intent: "chat", priority: 2 },
      { intent: "edit", keywords: ["refactor"], priority: 3 },
    ]);
    assert.equal(r.matched_rule, 1);
  });

  test("a typo rule before a catch-all wins when no rule matches exactly", () => {
    const r = classifyWith("reveiw this", [
      { intent: "review", keywords: ["review"], priority: 1 },
      { intent: "chat", priority: 2 },
    ]);
    assert.equal(r.matched_rule, 0);
  });

  test("an exact keyword of a rule whose context fails does not disable typos", () => {
    const r = classifyWith("review and depoly", [
      { intent: "review", keywords: ["review"], requires_any_context: ["git_diff"] },
      { intent: "edit", keywords: ["deploy"] },
    ]);
    assert.equal(r.matched_rule, 1);
  });

  test("keywords come from the text passed, not from attachments", () => {
    const req = request({
      input: { text: "hello" },
      attachments: { files: [{ path: "a.md", content: "review" }], instructions: [] },
      policy: { classification: { rules: [{ intent: "review", keywords: ["review"] }] } },
    });
    assert.equal(classify(req).matched_rule, null);
    assert.equal(classify(req, "now review it").matched_rule, 0);
  });
});

describe("available context kinds", () => {
  test("each kind is available only when present and non-empty", () => {
    const kinds = (workspace: Record<string, unknown>) =>
      [...availableContextKinds(request({ workspace }).workspace)].sort();
    assert.deepEqual(kinds({}), []);
    assert.deepEqual(kinds({ git_diff: "", referenced_paths: [], git_branch: "" }), []);
    assert.deepEqual(
      kinds({ git_diff: DIFF, referenced_paths: ["a"], git_branch: "main", active_file: "a" }),
      ["active_file", "git_branch", "git_diff", "referenced_paths"],
    );
  });
});
