import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { effectivePermissions, permissionList, toolMode } from "../../src/core/permissions.ts";
import type { Policy, RoutingRule } from "../../src/core/turn_request_types.ts";
import { request } from "./fixtures.ts";

function setup(base: Record<string, string>, required: Record<string, string> | null) {
  const rule = { name: "r", model: "a/b" } as Record<string, unknown>;
  if (required !== null) rule.required_permissions = { permissions: required };
  // Built without the schema's expansion check, to test the core check on its own.
  const policy = request({ policy: { tools: { permissions: base } } }).policy as Policy;
  const routingRule = {
    ...request({ policy: { routing: { rules: [{ name: "r", model: "a/b" }] } } })
      .policy.routing.rules[0],
    ...rule,
  } as RoutingRule;
  return { policy, rule: routingRule };
}

describe("tool permissions", () => {
  test("a tool with no entry is ask", () => {
    assert.equal(toolMode({}, "shell"), "ask");
    assert.equal(toolMode({ shell: "deny" }, "shell"), "deny");
    assert.equal(toolMode({}, "constructor"), "ask");
  });

  const tightening: [string, string, string][] = [
    ["allow", "ask", "ask"],
    ["allow", "deny", "deny"],
    ["ask", "deny", "deny"],
    ["deny", "deny", "deny"],
    ["ask", "ask", "ask"],
  ];
  for (const [base, requested, result] of tightening) {
    test(`${base} tightened by ${requested} is ${result}`, () => {
      const { policy, rule } = setup({ shell: base }, { shell: requested });
      const out = effectivePermissions(policy, rule);
      assert.ok(out.ok);
      assert.equal(out.value.shell, result);
    });
  }

  const loosening: [string | null, string][] = [["deny", "ask"], ["deny", "allow"], [
    "ask",
    "allow",
  ], [null, "allow"]];
  for (const [base, requested] of loosening) {
    test(`${base ?? "(absent)"} loosened to ${requested} is permission_expansion`, () => {
      const { policy, rule } = setup(base === null ? {} : { shell: base }, { shell: requested });
      const out = effectivePermissions(policy, rule);
      assert.equal(out.ok, false);
      if (out.ok) return;
      assert.equal(out.failure.code, "permission_expansion");
      assert.deepEqual(out.failure.details, {
        rule: "r",
        tool: "shell",
        base: base ?? "ask",
        requested,
      });
    });
  }

  test("without a rule the project's permissions stand; the list is sorted by name", () => {
    const { policy, rule } = setup({ shell: "allow", file_write: "ask", network: "deny" }, {
      memory: "deny",
      file_read: "ask",
    });
    const none = effectivePermissions(policy, null);
    assert.ok(none.ok);
    assert.deepEqual(none.value, { shell: "allow", file_write: "ask", network: "deny" });
    const out = effectivePermissions(policy, rule);
    assert.ok(out.ok);
    assert.deepEqual(permissionList(out.value), [
      { permission: "file_read", mode: "ask" },
      { permission: "file_write", mode: "ask" },
      { permission: "memory", mode: "deny" },
      { permission: "network", mode: "deny" },
      { permission: "shell", mode: "allow" },
    ]);
  });
});
