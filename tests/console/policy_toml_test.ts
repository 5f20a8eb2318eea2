import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parse } from "smol-toml";
import { policyToml } from "../../console/src/policy_toml.ts";
import { parsePolicy } from "../../src/http/policy_body.ts";

/** TOML as plain JSON data (smol-toml makes tables without a prototype). */
const read = (toml: string) => JSON.parse(JSON.stringify(parse(toml))) as Record<string, unknown>;

const normalised = (body: Record<string, unknown>) => {
  const out = parsePolicy(body);
  assert.ok(out.ok);
  return out.value as unknown as Record<string, unknown>;
};

describe("the console's policy TOML", () => {
  test("reads back as the same policy, quoting keys TOML cannot leave bare", () => {
    const policy = normalised({
      version: 1,
      classification: { rules: [{ intent: "edit", keywords: ['fix "it"', "a\\b\n"] }] },
      routing: {
        default: { model: "openai/gpt-4o-mini", fallbacks: ["openai/gpt-4o"] },
        rules: [
          {
            name: "local",
            paths: ["secrets/**"],
            local_only: true,
            model: "ollama/llama3",
            requires_capabilities: { tools: true },
            required_permissions: { permissions: { "file.write": "deny" } },
            cost_limit: "0.50",
          },
          { name: "second", model: "openai/gpt-4o", effort: "high", intent: "review" },
        ],
      },
      tools: { permissions: { shell: "ask", "mcp:git status": "allow" } },
      privacy: { restricted_paths: [".env"], remote: { mode: "allow" } },
    });
    const toml = policyToml(policy);
    // The rule's null intent is left out: absent is its default.
    assert.deepEqual(normalised(read(toml)), policy);
    assert.match(toml, /^\[\[routing\.rules\]\]\nname = "local"$/m);
    assert.match(toml, /^"mcp:git status" = "allow"$/m);
    assert.match(toml, /^\[routing\.rules\.required_permissions\.permissions\]$/m);
  });

  test("an empty policy is its default tables", () => {
    const toml = policyToml(normalised({}));
    assert.deepEqual(normalised(read(toml)), normalised({}));
    assert.match(toml, /^\[tools\.permissions\]$/m);
  });
});
