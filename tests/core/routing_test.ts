import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { contextItems, requiredTokens } from "../../src/core/context_items.ts";
import type { ModelDescriptor } from "../../src/core/model.ts";
import { constrainedPathMatcher } from "../../src/core/privacy.ts";
import { relevantPaths } from "../../src/core/relevant_paths.ts";
import { decideRoute } from "../../src/core/routing.ts";
import type { Intent } from "../../src/core/vocabulary.ts";
import { CATALOG, model, request } from "./fixtures.ts";

interface Case {
  body: Record<string, unknown>;
  intent?: Intent;
  catalog?: ModelDescriptor[];
  credentials?: string[];
  known?: string[];
  /** Set after validation, to reach the override checks the schema already makes. */
  override?: string;
}

function route(c: Case) {
  const req = request(c.body);
  if (c.override !== undefined) req.input.explicit_model = c.override;
  const items = contextItems(req, constrainedPathMatcher(req.policy));
  const catalog = c.catalog ?? CATALOG;
  return decideRoute({
    request: req,
    intent: c.intent ?? "chat",
    items,
    relevant_paths: relevantPaths(req),
    required_tokens: requiredTokens(items, req.input.text),
    catalog,
    known_providers: new Set(c.known ?? ["openai", "anthropic", "gemini", "ollama"]),
    credential_providers: new Set(c.credentials ?? ["openai", "anthropic"]),
  });
}

function chosen(c: Case) {
  const out = route(c);
  if (!out.ok) throw new Error(`expected a route, got ${out.failure.code}: ${out.failure.message}`);
  return out.value;
}

function refused(c: Case) {
  const out = route(c);
  if (out.ok) throw new Error(`expected a refusal, got ${out.value.reference}`);
  return out.failure;
}

const rules = [
  { name: "reviews", intent: "review", model: "anthropic/claude", priority: 10 },
  { name: "infra", paths: ["infra/**"], model: "openai/gpt-4o", fallbacks: ["ollama/llama3"] },
  { name: "edit-src", intent: "edit", paths: ["src/**"], model: "openai/gpt-4o", priority: 5 },
  { name: "anything", model: "ollama/llama3", priority: 2000 },
];

describe("rule selection", () => {
  test("first match by priority; reasons by the conditions that matched", () => {
    const table: [Intent, string[], string, string][] = [
      ["edit", ["src/a.ts"], "edit-src", "rule 'edit-src' matched on intent and path"],
      ["review", ["src/a.ts"], "reviews", "rule 'reviews' matched on intent"],
      ["chat", ["infra/main.tf"], "infra", "rule 'infra' matched on path"],
      ["edit", ["lib/a.ts"], "anything", "rule 'anything' matched as a catch-all"],
    ];
    for (const [intent, paths, name, reason] of table) {
      const r = chosen({
        body: { policy: { routing: { rules } }, workspace: { referenced_paths: paths } },
        intent,
      });
      assert.equal(r.rule?.name, name);
      assert.equal(r.reason, reason);
      assert.equal(r.override_used, false);
      assert.equal(r.fallback_used, false);
    }
  });

  test("paths match any relevant path: active file, diff b/ paths, attachments", () => {
    const sources = [
      { workspace: { active_file: "/w/infra/x.tf", root: "/w" } },
      { workspace: { git_diff: "diff --git a/x b/infra/y.tf\n" } },
      { attachments: { files: [{ path: "infra\\z.tf", content: "" }], instructions: [] } },
    ];
    for (const extra of sources) {
      const r = chosen({ body: { policy: { routing: { rules } }, ...extra } });
      assert.equal(r.rule?.name, "infra", JSON.stringify(extra));
    }
  });

  test("the default route when no rule matches, then no_route", () => {
    const r = chosen({
      body: {
        policy: { routing: { rules: rules.slice(0, 3), default: { model: "anthropic/claude" } } },
      },
    });
    assert.equal(r.rule, null);
    assert.equal(r.reason, "no rule matched; using the default route to 'anthropic/claude'");
    const f = refused({ body: { policy: { routing: { rules: rules.slice(0, 3) } } } });
    assert.equal(f.code, "no_route");
  });

  test("the rule's effort is passed on; medium otherwise", () => {
    const r = chosen({
      body: {
        policy: { routing: { rules: [{ name: "x", model: "openai/gpt-4o", effort: "high" }] } },
      },
    });
    assert.equal(r.effort, "high");
    const plain = chosen({
      body: { policy: { routing: { rules: [{ name: "x", model: "openai/gpt-4o" }] } } },
    });
    assert.equal(plain.effort, "medium");
  });
});

describe("candidate walk", () => {
  const primary = (extra: Record<string, unknown> = {}) => ({
    policy: {
      routing: {
        rules: [{
          name: "main",
          model: "openai/gpt-4o",
          fallbacks: ["anthropic/claude", "ollama/llama3"],
          ...extra,
        }],
      },
    },
  });

  test("missing credentials skip to the first usable fallback, with the reason suffix", () => {
    const r = chosen({ body: primary(), credentials: ["anthropic"] });
    assert.equal(r.reference, "anthropic/claude");
    assert.equal(r.fallback_used, true);
    assert.equal(
      r.reason,
      "rule 'main' matched as a catch-all (fallback 1: openai/gpt-4o unavailable: missing credentials)",
    );
  });

  test("the suffix numbers the fallback taken and names the primary", () => {
    const r = chosen({ body: primary(), credentials: [] });
    assert.equal(r.reference, "ollama/llama3");
    assert.equal(
      r.reason,
      "rule 'main' matched as a catch-all (fallback 2: openai/gpt-4o unavailable: missing credentials)",
    );
    assert.deepEqual(r.skipped.map((s) => s.model), ["openai/gpt-4o", "anthropic/claude"]);
  });

  test("auth none, optional_api_key and custom need no credential", () => {
    for (const auth of ["none", "optional_api_key", { custom: "bearer" }] as const) {
      const r = chosen({
        body: { policy: { routing: { rules: [{ name: "m", model: "x/m" }] } } },
        catalog: [model("x/m", { auth })],
        known: ["x"],
        credentials: [],
      });
      assert.equal(r.reference, "x/m");
    }
  });

  test("a model not listed in the catalog is skipped", () => {
    const r = chosen({
      body: {
        policy: {
          routing: { rules: [{ name: "m", model: "openai/gpt-9", fallbacks: ["openai/gpt-4o"] }] },
        },
      },
    });
    assert.equal(
      r.reason,
      "rule 'm' matched as a catch-all (fallback 1: openai/gpt-9 unavailable: not in the catalog)",
    );
  });

  const unknownProviderCases: [string, Record<string, unknown>, string][] = [
    [
      "a rule's model",
      { rules: [{ name: "m", model: "nope/x" }] },
      "policy.routing.rules[0].model",
    ],
    [
      "a rule's fallback, even when the primary is usable",
      { rules: [{ name: "m", model: "openai/gpt-4o", fallbacks: ["openai/gpt-4o", "nope/x"] }] },
      "policy.routing.rules[0].fallbacks[1]",
    ],
    [
      "the default route",
      { default: { model: "nope/x" }, rules: [] },
      "policy.routing.default.model",
    ],
    [
      "a default fallback",
      { default: { model: "openai/gpt-4o", fallbacks: ["nope/x"] }, rules: [] },
      "policy.routing.default.fallbacks[0]",
    ],
    [
      "a rule that did not match this turn",
      {
        default: { model: "openai/gpt-4o" },
        rules: [{ name: "m", intent: "review", model: "nope/x" }],
      },
      "policy.routing.rules[0].model",
    ],
  ];
  for (const [what, routing, path] of unknownProviderCases) {
    test(`an unknown provider in ${what} is 422 unknown_provider naming ${path}`, () => {
      const out = route({ body: { policy: { routing } } });
      assert.equal(out.ok, false);
      if (out.ok) return;
      assert.equal(out.failure.code, "unknown_provider");
      assert.deepEqual(out.failure.details, { path, provider: "nope" });
      assert.match(
        out.failure.message,
        new RegExp(`^unknown provider: ${path.replace(/[[\]]/g, "\\$&")}: 'nope'`),
      );
    });
  }

  test("an unknown provider in the policy is refused with an override too", () => {
    const out = route({
      body: { policy: { routing: { default: { model: "nope/x" }, rules: [] } } },
      override: "openai/gpt-4o",
    });
    assert.equal(out.ok ? "ok" : out.failure.code, "unknown_provider");
  });

  test("a known provider whose model the catalog lacks is still a skipped candidate", () => {
    const r = chosen({
      body: {
        policy: {
          routing: { rules: [{ name: "m", model: "openai/gpt-9", fallbacks: ["openai/gpt-4o"] }] },
        },
      },
    });
    assert.equal(r.skipped[0].reason, "not in the catalog");
  });

  test("required capabilities gate candidates", () => {
    const r = chosen({
      body: primary({ requires_capabilities: { reasoning: true } }),
      catalog: [
        ...CATALOG.slice(0, 1),
        model("anthropic/claude", { capabilities: { reasoning: true } }),
      ],
    });
    assert.equal(r.reference, "anthropic/claude");
    assert.equal(r.skipped[0].reason, "missing capability 'reasoning'");
  });

  test("a window that cannot hold required context plus reply reserve is skipped", () => {
    const big = "x".repeat(4 * 5000); // 5000 tokens
    const r = chosen({
      body: {
        input: { text: big },
        policy: {
          routing: { rules: [{ name: "m", model: "ollama/llama3", fallbacks: ["openai/gpt-4o"] }] },
        },
      },
    });
    assert.equal(r.reference, "openai/gpt-4o");
    assert.match(r.skipped[0].reason, /^context window too small/);
    // 4096 prompt tokens fit 8192 - 4096 (reserve when max_output_tokens is unknown)
    const fits = chosen({
      body: {
        input: { text: "x".repeat(4 * 4096) },
        policy: { routing: { rules: [{ name: "m", model: "ollama/llama3" }] } },
      },
    });
    assert.equal(fits.reference, "ollama/llama3");
  });

  test("every candidate too small: context_window_exceeded", () => {
    const f = refused({
      body: {
        input: { text: "x".repeat(4 * 5000) },
        policy: { routing: { rules: [{ name: "m", model: "ollama/llama3" }] } },
      },
    });
    assert.equal(f.code, "context_window_exceeded");
  });

  test("no usable candidate: fallback_exhausted with every skip in details", () => {
    const f = refused({ body: primary(), credentials: [], catalog: CATALOG.slice(0, 2) });
    assert.equal(f.code, "fallback_exhausted");
    assert.deepEqual(f.details?.skipped, [
      { model: "openai/gpt-4o", reason: "missing credentials" },
      { model: "anthropic/claude", reason: "missing credentials" },
      { model: "ollama/llama3", reason: "not in the catalog" },
    ]);
  });
});

describe("locality in routing", () => {
  const route3 = {
    routing: { rules: [{ name: "main", model: "openai/gpt-4o", fallbacks: ["ollama/llama3"] }] },
  };
  const sources: [string, Record<string, unknown>][] = [
    ["local_only preference", { local_preferences: { local_only: true } }],
    ["no_network preference", { local_preferences: { no_network: true } }],
    ["remote mode deny", { policy: { ...route3, privacy: { remote: { mode: "deny" } } } }],
    ["constrained required content", {
      policy: { ...route3, privacy: { restricted_paths: ["secrets/**"] } },
      attachments: {
        files: [{ path: "secrets/a", content: "s", required: true }],
        instructions: [],
      },
    }],
    ["local_only rule", {
      policy: { routing: { rules: [{ ...route3.routing.rules[0], local_only: true }] } },
    }],
  ];
  for (const [name, body] of sources) {
    test(`${name} skips remote candidates`, () => {
      const r = chosen({ body: { policy: route3, ...body } });
      assert.equal(r.reference, "ollama/llama3");
      assert.equal(r.skipped[0].reason, "remote model while local is required");
      assert.ok(r.local_required.includes(name as never));
    });
    test(`${name} with no usable local model is no_route`, () => {
      const f = refused({ body: { policy: route3, ...body }, catalog: CATALOG.slice(0, 2) });
      assert.equal(f.code, "no_route");
    });
  }

  test("local mode deny with required workspace content bars local candidates", () => {
    const f = refused({
      body: {
        policy: { ...route3, privacy: { local: { mode: "deny" } } },
        attachments: { files: [{ path: "a.ts", content: "x", required: true }], instructions: [] },
      },
      credentials: [],
    });
    assert.equal(f.code, "fallback_exhausted");
    assert.deepEqual(
      (f.details?.skipped as { reason: string }[]).map((s) => s.reason),
      ["missing credentials", "local mode deny"],
    );
  });
});

describe("explicit model override", () => {
  const body = (ref: string, extra: Record<string, unknown> = {}) => ({
    input: { explicit_model: ref },
    policy: { routing: { rules: [{ name: "r", model: "ollama/llama3" }] } },
    ...extra,
  });

  test("bypasses rules, with no fallback", () => {
    const r = chosen({ body: body("anthropic/claude") });
    assert.equal(r.reference, "anthropic/claude");
    assert.equal(r.override_used, true);
    assert.equal(r.fallback_used, false);
    assert.equal(r.rule, null);
    assert.equal(r.reason, "explicit model override 'anthropic/claude'");
  });

  test("bypasses capability gates of rules", () => {
    const r = chosen({
      body: {
        input: { explicit_model: "ollama/llama3" },
        policy: {
          routing: {
            rules: [{ name: "r", model: "openai/gpt-4o", requires_capabilities: { images: true } }],
          },
        },
      },
    });
    assert.equal(r.reference, "ollama/llama3");
  });

  const refusals: [string, Case, string][] = [
    ["not provider/model", { body: body("a/b"), override: "gpt-4o" }, "invalid_model_reference"],
    [
      "malformed provider",
      { body: body("a/b"), override: "Open AI/gpt-4o" },
      "invalid_provider_name",
    ],
    ["unknown provider", { body: body("mistral/large") }, "unknown_provider"],
    ["model not in the catalog", { body: body("openai/gpt-9") }, "unknown_model"],
    [
      "remote while local is required",
      { body: body("openai/gpt-4o", { local_preferences: { local_only: true } }) },
      "override_not_allowed",
    ],
    [
      "remote on constrained required content",
      {
        body: body("openai/gpt-4o", {
          policy: { privacy: { remote: { blocked_paths: [".env"] } } },
          attachments: {
            files: [{ path: "app/.env", content: "K=1", required: true }],
            instructions: [],
          },
        }),
      },
      "override_not_allowed",
    ],
    [
      "missing credential",
      { body: body("openai/gpt-4o"), credentials: [] },
      "missing_provider_credentials",
    ],
    [
      "window too small",
      {
        body: body("ollama/llama3", {
          input: { explicit_model: "ollama/llama3", text: "y".repeat(20000) },
        }),
      },
      "context_window_exceeded",
    ],
  ];
  for (const [name, c, code] of refusals) {
    test(`refuses ${name}: ${code}`, () => assert.equal(refused(c).code, code));
  }

  test("refusals come in the specified order", () => {
    // unknown model and missing credential and local required: unknown_model first
    assert.equal(
      refused({
        body: body("openai/gpt-9", { local_preferences: { local_only: true } }),
        credentials: [],
      }).code,
      "unknown_model",
    );
    // remote while local required beats missing credential
    assert.equal(
      refused({
        body: body("openai/gpt-4o", { local_preferences: { no_network: true } }),
        credentials: [],
      }).code,
      "override_not_allowed",
    );
  });

  test("a custom provider-id predicate can be passed in", () => {
    const req = request(body("weird/x"));
    const out = decideRoute({
      request: req,
      intent: "chat",
      items: [],
      relevant_paths: [],
      required_tokens: 1,
      catalog: CATALOG,
      known_providers: new Set(["openai"]),
      credential_providers: new Set(),
      is_valid_provider_id: (id) => id !== "weird",
    });
    assert.equal(out.ok ? "ok" : out.failure.code, "invalid_provider_name");
  });
});
