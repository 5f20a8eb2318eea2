import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { parseTurnRequest } from "../../src/http/turn_request.ts";

function failureOf(body: unknown) {
  const out = parseTurnRequest(body);
  assert.equal(out.ok, false, "expected a validation failure");
  if (out.ok) throw new Error("unreachable");
  return out.failure;
}

function withRules(rules: unknown[], extra: Record<string, unknown> = {}) {
  return { input: { text: "hi" }, policy: { routing: { rules }, ...extra } };
}

describe("turn request schema", () => {
  test("fills every default of interface.md and decisions.md", () => {
    const out = parseTurnRequest({
      input: { text: "hi" },
      policy: {
        classification: { rules: [{ intent: "edit" }] },
        routing: { rules: [{ name: "r", model: "openai/gpt-4o" }] },
      },
    });
    assert.ok(out.ok);
    const r = out.value;
    assert.deepEqual(r.input, { text: "hi", command: null, explicit_model: null });
    assert.deepEqual(r.workspace, {
      root: null,
      git_branch: null,
      git_diff: null,
      referenced_paths: [],
      active_file: null,
    });
    assert.equal(r.policy.classification.default_intent, "chat");
    assert.equal(r.policy.classification.rules[0].priority, 1000);
    const rule = r.policy.routing.rules[0];
    assert.equal(rule.priority, 1000);
    assert.equal(rule.effort, "medium");
    assert.equal(rule.intent, null);
    assert.deepEqual(rule.paths, []);
    assert.equal(rule.local_only, false);
    assert.deepEqual(rule.fallbacks, []);
    assert.deepEqual(r.policy.tools, { permissions: {} });
    assert.deepEqual(r.policy.privacy, {
      restricted_paths: [],
      remote: { mode: "ask", blocked_paths: [] },
      local: { mode: "allow" },
    });
    assert.deepEqual(r.local_preferences, {
      auto_apply: false,
      local_only: false,
      no_network: false,
    });
    assert.deepEqual(r.attachments, {
      files: [],
      instructions: [],
      invoked_skills: [],
      available_skills: [],
    });
  });

  test("partial privacy blocks keep the defaults of the missing parts", () => {
    const out = parseTurnRequest({
      input: { text: "hi" },
      policy: { privacy: { remote: { blocked_paths: [".env"] } } },
    });
    assert.ok(out.ok);
    assert.deepEqual(out.value.policy.privacy.remote, { mode: "ask", blocked_paths: [".env"] });
    assert.deepEqual(out.value.policy.privacy.local, { mode: "allow" });
  });

  test("ignores unknown fields at every depth and drops them", () => {
    const out = parseTurnRequest({
      input: { text: "hi", shiny: true },
      local_preferences: { stream: true },
      policy: { routing: { rules: [{ name: "r", model: "a/b", colour: "red" }] } },
      extra: 1,
    });
    assert.ok(out.ok);
    assert.equal("extra" in out.value, false);
    assert.equal("shiny" in out.value.input, false);
    assert.equal("stream" in out.value.local_preferences, false);
    assert.equal("colour" in out.value.policy.routing.rules[0], false);
  });

  test("file required defaults to false; ignores unknown capabilities", () => {
    const out = parseTurnRequest({
      input: { text: "hi" },
      attachments: { files: [{ path: "a.ts", content: "x" }], instructions: [] },
      policy: {
        routing: {
          rules: [{
            name: "r",
            model: "a/b",
            requires_capabilities: { tools: true, telepathy: true },
          }],
        },
      },
    });
    assert.ok(out.ok);
    assert.equal(out.value.attachments.files[0].required, false);
    assert.deepEqual(out.value.policy.routing.rules[0].requires_capabilities, { tools: true });
  });

  const cases: { name: string; body: unknown; code: string; path: string }[] = [
    { name: "missing input", body: {}, code: "invalid_request", path: "input" },
    {
      name: "text not a string",
      body: { input: { text: 3 } },
      code: "invalid_request",
      path: "input.text",
    },
    { name: "body not an object", body: "hi", code: "invalid_request", path: "" },
    {
      name: "unknown command",
      body: { input: { text: "x", command: "deploy" } },
      code: "unknown_intent",
      path: "input.command",
    },
    {
      name: "command of the wrong type",
      body: { input: { text: "x", command: 7 } },
      code: "unknown_intent",
      path: "input.command",
    },
    {
      name: "unknown default intent",
      body: { input: { text: "x" }, policy: { classification: { default_intent: "talk" } } },
      code: "unknown_intent",
      path: "policy.classification.default_intent",
    },
    {
      name: "unknown classification rule intent",
      body: {
        input: { text: "x" },
        policy: { classification: { rules: [{ intent: "chat" }, { intent: "nope" }] } },
      },
      code: "unknown_intent",
      path: "policy.classification.rules[1].intent",
    },
    {
      name: "negative classification priority",
      body: {
        input: { text: "x" },
        policy: { classification: { rules: [{ intent: "chat", priority: -1 }] } },
      },
      code: "invalid_request",
      path: "policy.classification.rules[0].priority",
    },
    {
      name: "unknown routing rule intent",
      body: withRules([{ name: "a", model: "a/b", intent: "wander" }]),
      code: "unknown_intent",
      path: "policy.routing.rules[0].intent",
    },
    {
      name: "unknown effort",
      body: withRules([{ name: "a", model: "a/b" }, { name: "b", model: "a/b" }, {
        name: "c",
        model: "a/b",
        effort: "max",
      }]),
      code: "unknown_effort",
      path: "policy.routing.rules[2].effort",
    },
    {
      name: "routing rule without a model (missing, not malformed)",
      body: withRules([{ name: "a" }]),
      code: "invalid_request",
      path: "policy.routing.rules[0].model",
    },
    {
      name: "default route without a model",
      body: { input: { text: "x" }, policy: { routing: { default: {} } } },
      code: "invalid_request",
      path: "policy.routing.default.model",
    },
    {
      name: "classification rule without an intent",
      body: { input: { text: "x" }, policy: { classification: { rules: [{ keywords: ["a"] }] } } },
      code: "invalid_request",
      path: "policy.classification.rules[0].intent",
    },
    {
      name: "routing rule model of the wrong type (malformed)",
      body: withRules([{ name: "a", model: 7 }]),
      code: "invalid_model_reference",
      path: "policy.routing.rules[0].model",
    },
    {
      name: "malformed explicit model",
      body: { input: { text: "x", explicit_model: "gpt-4o" } },
      code: "invalid_model_reference",
      path: "input.explicit_model",
    },
    {
      name: "explicit model with an empty model part",
      body: { input: { text: "x", explicit_model: "openai/" } },
      code: "invalid_model_reference",
      path: "input.explicit_model",
    },
    {
      name: "malformed provider in explicit model",
      body: { input: { text: "x", explicit_model: "openai-compat:Bad Name!/m" } },
      code: "invalid_provider_name",
      path: "input.explicit_model",
    },
    {
      name: "malformed default route",
      body: { input: { text: "x" }, policy: { routing: { default: { model: "nomodel" } } } },
      code: "invalid_model_reference",
      path: "policy.routing.default.model",
    },
    {
      name: "malformed default fallback",
      body: {
        input: { text: "x" },
        policy: { routing: { default: { model: "a/b", fallbacks: ["a/c", "Upper/x"] } } },
      },
      code: "invalid_provider_name",
      path: "policy.routing.default.fallbacks[1]",
    },
    {
      name: "malformed rule model",
      body: withRules([{ name: "a", model: "plain" }]),
      code: "invalid_model_reference",
      path: "policy.routing.rules[0].model",
    },
    {
      name: "rule model of the wrong type",
      body: withRules([{ name: "a", model: 12 }]),
      code: "invalid_model_reference",
      path: "policy.routing.rules[0].model",
    },
    {
      name: "malformed rule fallback",
      body: withRules([{ name: "a", model: "a/b", fallbacks: ["x"] }]),
      code: "invalid_model_reference",
      path: "policy.routing.rules[0].fallbacks[0]",
    },
    {
      name: "duplicate routing rule names",
      body: withRules([{ name: "a", model: "a/b" }, { name: "b", model: "a/b" }, {
        name: "a",
        model: "a/b",
      }]),
      code: "invalid_request",
      path: "policy.routing.rules[2].name",
    },
    {
      name: "invalid routing glob",
      body: withRules([{ name: "a", model: "a/b", paths: ["src/**", "src/[oops"] }]),
      code: "invalid_request",
      path: "policy.routing.rules[0].paths[1]",
    },
    {
      name: "empty routing glob",
      body: withRules([{ name: "a", model: "a/b", paths: [""] }]),
      code: "invalid_request",
      path: "policy.routing.rules[0].paths[0]",
    },
    {
      name: "cost limit not a decimal",
      body: withRules([{ name: "a", model: "a/b", cost_limit: "1e3" }]),
      code: "invalid_request",
      path: "policy.routing.rules[0].cost_limit",
    },
    {
      name: "unknown permission mode",
      body: { input: { text: "x" }, policy: { tools: { permissions: { shell: "never" } } } },
      code: "invalid_request",
      path: "policy.tools.permissions.shell",
    },
    {
      name: "attachments without files",
      body: { input: { text: "x" }, attachments: { instructions: [] } },
      code: "invalid_request",
      path: "attachments.files",
    },
  ];

  for (const c of cases) {
    test(`rejects ${c.name} with ${c.code} at '${c.path}'`, () => {
      const f = failureOf(c.body);
      assert.equal(f.code, c.code);
      assert.equal(f.details?.path, c.path);
      const issues = f.details?.issues as { path: string; message: string }[];
      assert.ok(Array.isArray(issues) && issues.length > 0);
      assert.equal(issues[0].path, c.path);
      assert.equal(typeof issues[0].message, "string");
    });
  }

  test("the first failing path decides the code when several fail", () => {
    const f = failureOf({
      input: { text: "x", command: "nope" },
      policy: { routing: { rules: [{ name: "a", model: "a/b", effort: "max" }] } },
    });
    assert.equal(f.code, "unknown_intent");
    assert.deepEqual(
      (f.details?.issues as { path: string }[]).map((i) => i.path),
      ["input.command", "policy.routing.rules[0].effort"],
    );
  });

  test("a loosening rule permission is permission_expansion naming tool and modes", () => {
    const f = failureOf(withRules([{
      name: "edits",
      model: "a/b",
      required_permissions: { permissions: { shell: "deny", file_write: "allow" } },
    }], { tools: { permissions: { file_write: "ask", shell: "allow" } } }));
    assert.equal(f.code, "permission_expansion");
    assert.equal(f.details?.tool, "file_write");
    assert.equal(f.details?.base, "ask");
    assert.equal(f.details?.requested, "allow");
    assert.equal(
      f.details?.path,
      "policy.routing.rules[0].required_permissions.permissions.file_write",
    );
  });

  test("a rule loosening a tool with no project entry (ask) is an expansion", () => {
    const f = failureOf(withRules([{
      name: "r",
      model: "a/b",
      required_permissions: { permissions: { network: "allow" } },
    }]));
    assert.equal(f.code, "permission_expansion");
    assert.equal(f.details?.base, "ask");
  });

  test("tightening permissions and well-formed compat references pass", () => {
    const out = parseTurnRequest(withRules([{
      name: "r",
      model: "openai-compat:my-box_local/qwen/qwen3:8b",
      required_permissions: { permissions: { shell: "deny", file_read: "ask" } },
      cost_limit: "0.50",
    }], { tools: { permissions: { shell: "ask", file_read: "allow" } } }));
    assert.ok(out.ok, JSON.stringify(out));
  });
});
