import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { constrainedPathMatcher } from "../../src/core/privacy.ts";
import {
  BUILTIN_TOOLS,
  offeredTools,
  toolCatalog,
  type ToolDefinition,
} from "../../src/core/tool_catalog.ts";
import {
  DENIED_BY_POLICY,
  isClientBound,
  mediateToolCalls,
  type MediationContext,
  memoryResult,
  type ModelToolCall,
  resultsForModel,
  toolCallTracePayload,
} from "../../src/core/tool_mediation.ts";
import type { PermissionMode } from "../../src/core/vocabulary.ts";
import { request } from "./fixtures.ts";

const SKILLS = {
  attachments: {
    files: [],
    instructions: [],
    invoked_skills: [{ name: "deploy", content: "..." }],
    available_skills: [
      { name: "lint", content: "..." },
      { name: "deploy", content: "dup" },
      { name: "read_file", content: "shadowed" },
      { name: "bad name!", content: "..." },
    ],
  },
};

describe("tool catalog", () => {
  const TABLE: [string, string, string[]][] = [
    ["read_file", "file_read", ["path"]],
    ["write_file", "file_write", ["path", "content"]],
    ["edit_file", "file_write", ["path", "old", "new"]],
    ["shell", "shell", ["command"]],
    ["fetch", "network", ["url"]],
    ["memory", "memory", ["op", "scope", "key"]],
  ];
  for (const [name, permission, required] of TABLE) {
    test(`${name} is governed by ${permission} and requires ${required.join(", ")}`, () => {
      const tool = BUILTIN_TOOLS.find((t) => t.name === name);
      assert.ok(tool);
      assert.equal(tool.permission, permission);
      assert.deepEqual(tool.parameters.required, required);
      assert.equal(tool.parameters.type, "object");
      assert.deepEqual(
        Object.keys(tool.parameters.properties as object).slice(0, required.length),
        required,
      );
      assert.equal(tool.executor, name === "memory" ? "service" : "client");
    });
  }

  test("memory's arguments are { op: record|forget, scope: user|session, key, value? }", () => {
    const props = BUILTIN_TOOLS.find((t) => t.name === "memory")!.parameters.properties as Record<
      string,
      { enum?: string[] }
    >;
    assert.deepEqual(props.op.enum, ["record", "forget"]);
    assert.deepEqual(props.scope.enum, ["user", "session"]);
    assert.ok("value" in props);
  });

  test("one tool per invoked or available skill, named after it and governed by its name", () => {
    const catalog = toolCatalog(request(SKILLS));
    const skills = catalog.slice(BUILTIN_TOOLS.length);
    assert.deepEqual(skills.map((t) => [t.name, t.permission, t.executor]), [
      ["deploy", "deploy", "client"],
      ["lint", "lint", "client"],
    ]);
    assert.equal(catalog.filter((t) => t.name === "read_file").length, 1);
  });

  test("a tool with no permission entry is offered as ask; deny is not offered", () => {
    const catalog = toolCatalog(request(SKILLS));
    const offered = offeredTools(
      catalog,
      { shell: "deny", file_read: "allow", lint: "deny" },
      false,
    );
    const modes = Object.fromEntries(offered.map((t) => [t.name, t.mode]));
    assert.deepEqual(modes, {
      read_file: "allow",
      write_file: "ask",
      edit_file: "ask",
      fetch: "ask",
      memory: "ask",
      deploy: "ask",
    });
  });

  test("plan mode denies write_file and edit_file, whatever file_write says", () => {
    const offered = offeredTools(BUILTIN_TOOLS, { file_write: "allow" }, true);
    assert.deepEqual(offered.map((t) => t.name), ["read_file", "shell", "fetch", "memory"]);
  });

  test("every parameter schema is a JSON object schema the providers accept", () => {
    for (const tool of toolCatalog(request(SKILLS))) {
      assert.equal(tool.parameters.type, "object", tool.name);
      assert.match(tool.name, /^[A-Za-z0-9_-]{1,64}$/);
      assert.ok(tool.description.length > 0);
    }
  });
});

function ctx(
  permissions: Record<string, PermissionMode>,
  fields: Partial<MediationContext> = {},
): MediationContext {
  const req = request({
    policy: { privacy: { restricted_paths: ["secrets/**", ".env"] } },
    ...SKILLS,
  });
  return {
    catalog: toolCatalog(req) as ToolDefinition[],
    permissions,
    plan_mode: false,
    constrained: constrainedPathMatcher(req.policy),
    workspace_root: "/repo",
    ...fields,
  };
}

const call = (
  call_id: string,
  name: string,
  args: Record<string, unknown> = {},
): ModelToolCall => ({
  call_id,
  name,
  arguments: args,
});

describe("tool mediation", () => {
  test("allow and ask go to the client with requires_approval, in call order", () => {
    const out = mediateToolCalls(
      [call("1", "read_file", { path: "a.ts" }), call("2", "shell", { command: "ls" })],
      ctx({ file_read: "allow" }),
    );
    assert.deepEqual(out.tool_requests, [
      { call_id: "1", name: "read_file", arguments: { path: "a.ts" }, requires_approval: "allow" },
      { call_id: "2", name: "shell", arguments: { command: "ls" }, requires_approval: "ask" },
    ]);
    assert.deepEqual(out.service_results, []);
    assert.equal(out.next, "await_client");
    assert.deepEqual(out.order, ["1", "2"]);
  });

  const DENIALS: [string, ModelToolCall, Record<string, PermissionMode>, boolean][] = [
    ["a deny tool", call("1", "shell", { command: "rm -rf /" }), { shell: "deny" }, false],
    ["an unknown tool", call("1", "teleport"), {}, false],
    ["a skill denied by its own name", call("1", "deploy"), { deploy: "deny" }, false],
    ["write_file in plan mode", call("1", "write_file", { path: "a", content: "" }), {
      file_write: "allow",
    }, true],
    ["edit_file in plan mode", call("1", "edit_file", { path: "a", old: "", new: "" }), {}, true],
    ["memory when memory is deny", call("1", "memory", { op: "forget", scope: "user", key: "k" }), {
      memory: "deny",
    }, false],
  ];
  for (const [name, c, permissions, plan] of DENIALS) {
    test(`${name} is answered 'denied by policy' and the model is called again`, () => {
      const out = mediateToolCalls([c], ctx(permissions, { plan_mode: plan }));
      assert.deepEqual(out.service_results, [
        { call_id: "1", name: c.name, content: DENIED_BY_POLICY, is_error: true },
      ]);
      assert.deepEqual(out.tool_requests, []);
      assert.equal(out.next, "call_model");
    });
  }

  test("denied calls beside client-bound ones wait for the client", () => {
    const out = mediateToolCalls(
      [call("1", "shell", { command: "x" }), call("2", "read_file", { path: "a" })],
      ctx({ shell: "deny" }),
    );
    assert.equal(out.next, "await_client");
    assert.deepEqual(out.service_results.map((r) => r.call_id), ["1"]);
    assert.deepEqual(out.tool_requests.map((r) => r.call_id), ["2"]);
  });

  test("memory is executed by the service, never sent to the client, under allow or ask", () => {
    for (const mode of ["allow", "ask"] as const) {
      const out = mediateToolCalls(
        [call("m", "memory", { op: "record", scope: "user", key: "editor", value: "vim" })],
        ctx({ memory: mode }),
      );
      assert.deepEqual(out.memory, [
        { call_id: "m", op: { op: "record", scope: "user", key: "editor", value: "vim" } },
      ]);
      assert.deepEqual(out.tool_requests, []);
      assert.equal(out.next, "call_model");
    }
  });

  test("a memory call with bad arguments is answered with an error by the service", () => {
    const out = mediateToolCalls([call("m", "memory", { op: "wipe" })], ctx({}));
    assert.equal(out.memory.length, 0);
    assert.equal(out.service_results.length, 1);
    assert.equal(out.service_results[0].is_error, true);
    assert.match(out.service_results[0].content, /^invalid memory call: op/);
  });

  test("constrained paths in arguments mark the calls whose results are constrained", () => {
    const out = mediateToolCalls([
      call("1", "read_file", { path: "/repo/secrets/key.pem" }),
      call("2", "read_file", { path: "src/a.ts" }),
      call("3", "write_file", { path: "./config/.env", content: "" }),
      call("4", "shell", { command: "cat secrets/key.pem" }),
      call("5", "shell", { command: "x", path: "secrets/x" }),
    ], ctx({}));
    assert.deepEqual(out.constrained_call_ids, ["1", "3", "5"]);
  });

  test("isClientBound is known from the name alone", () => {
    const c = ctx({ shell: "deny" });
    assert.equal(isClientBound("read_file", c), true);
    assert.equal(isClientBound("deploy", c), true);
    assert.equal(isClientBound("shell", c), false);
    assert.equal(isClientBound("memory", c), false);
    assert.equal(isClientBound("nope", c), false);
  });

  test("results go back to the model in the reply's order", () => {
    const out = mediateToolCalls([
      call("1", "read_file", { path: "a" }),
      call("2", "shell"),
      call("3", "memory", { op: "forget", scope: "session", key: "k" }),
    ], ctx({ shell: "deny" }));
    const memory = memoryResult(out.memory[0], false);
    const merged = resultsForModel(out.order, [...out.service_results, memory], [
      { call_id: "1", content: "text", is_error: false },
    ]);
    assert.deepEqual(merged, [
      { call_id: "1", content: "text", is_error: false },
      { call_id: "2", content: DENIED_BY_POLICY, is_error: true },
      { call_id: "3", content: "nothing to forget in session memory", is_error: false },
    ]);
    assert.throws(() =>
      resultsForModel(["1", "9"], [], [{ call_id: "1", content: "", is_error: false }])
    );
  });

  test("the tool_call trace payload carries names and ids, not arguments", () => {
    assert.deepEqual(toolCallTracePayload("1", "shell", "denied"), {
      type: "tool_call",
      call_id: "1",
      tool_name: "shell",
      status: "denied",
    });
  });
});
