/**
 * What a request's content needs of a model gates the candidate walk
 * (decisions.md §12 "Images", "Structured output"): images in the last user
 * message need `images`, a `json_object` or `json_schema` response format
 * needs `json_output`; a candidate without it is skipped with that reason,
 * after the rule's own capability check and before the window check, the same
 * bytes every time. An explicit model is not gated (it names its model).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ContentNeed } from "../../src/core/candidate_walk.ts";
import { previewBody } from "../../src/core/preview.ts";
import { decideTurn } from "../../src/core/turn_decision.ts";
import { contentNeeds } from "../../src/engine/conversation_turn.ts";
import { model, request } from "./fixtures.ts";

const CATALOG = [
  model("openai/mini", { capabilities: { streaming: true, tools: true } }),
  model("openai/json", {
    capabilities: { streaming: true, json_output: true },
  }),
  model("openai/vision", {
    capabilities: { streaming: true, images: true, json_output: true },
  }),
];

const POLICY = {
  routing: {
    default: {
      model: "openai/mini",
      fallbacks: ["openai/json", "openai/vision"],
    },
    rules: [],
  },
};

function decide(needs: ContentNeed[], body: Record<string, unknown> = {}) {
  return decideTurn({
    request: request({ policy: POLICY, ...body }),
    catalog: CATALOG,
    credential_providers: ["openai"],
    content_capabilities: needs,
  });
}

const JSON_OBJECT = contentNeeds({
  prompt: { role: "user", content: "list" },
  sampling: { responseFormat: { type: "json_object" } },
});
const IMAGES = contentNeeds({
  prompt: {
    role: "user",
    content: "what is this",
    images: [{ data: "iVBORw0KGgo=" }],
  },
});

describe("content gates in the candidate walk", () => {
  test("what the content needs: images in the prompt, a JSON response format; text needs nothing", () => {
    assert.deepEqual(JSON_OBJECT, [{
      capability: "json_output",
      because: "response format 'json_object'",
    }]);
    assert.deepEqual(IMAGES, [{
      capability: "images",
      because: "the last user message has images",
    }]);
    assert.deepEqual(
      contentNeeds({
        prompt: { role: "user", content: "x" },
        sampling: { responseFormat: { type: "text" } },
      }),
      [],
    );
  });

  test("golden: the reasons and the chosen model, byte for byte", () => {
    const table: [ContentNeed[], string][] = [
      [[], "no rule matched; using the default route to 'openai/mini'"],
      [
        JSON_OBJECT,
        "no rule matched; using the default route to 'openai/mini' (fallback 1: openai/mini " +
        "unavailable: missing capability 'json_output' (response format 'json_object'))",
      ],
      [
        IMAGES,
        "no rule matched; using the default route to 'openai/mini' (fallback 2: openai/mini " +
        "unavailable: missing capability 'images' (the last user message has images))",
      ],
      [
        [...IMAGES, ...JSON_OBJECT],
        "no rule matched; using the default route to 'openai/mini' (fallback 2: openai/mini " +
        "unavailable: missing capability 'images' (the last user message has images))",
      ],
    ];
    for (const [needs, reason] of table) {
      const d = decide(needs);
      assert.ok(d.ok);
      assert.equal(d.value.routing.reason, reason);
      // Deterministic: the same input, the same bytes.
      const again = decide(needs);
      assert.ok(again.ok);
      assert.equal(
        JSON.stringify(previewBody(again.value)),
        JSON.stringify(previewBody(d.value)),
      );
    }
    const both = decide([...IMAGES, ...JSON_OBJECT]);
    assert.ok(both.ok);
    assert.equal(both.value.routing.model.model, "vision");
    assert.deepEqual(
      both.value.routing.skipped.map((s) => [s.model, s.check, s.reason]),
      [
        [
          "openai/mini",
          "capability",
          "missing capability 'images' (the last user message has images)",
        ],
        [
          "openai/json",
          "capability",
          "missing capability 'images' (the last user message has images)",
        ],
      ],
    );
  });

  test("no candidate can: fallback exhausted, each skip saying why", () => {
    const out = decideTurn({
      request: request({
        policy: {
          routing: {
            default: { model: "openai/mini", fallbacks: ["openai/json"] },
          },
        },
      }),
      catalog: CATALOG,
      credential_providers: ["openai"],
      content_capabilities: IMAGES,
    });
    assert.ok(!out.ok);
    assert.equal(out.failure.code, "fallback_exhausted");
    assert.deepEqual(out.failure.details?.skipped, [
      {
        model: "openai/mini",
        reason: "missing capability 'images' (the last user message has images)",
      },
      {
        model: "openai/json",
        reason: "missing capability 'images' (the last user message has images)",
      },
    ]);
  });

  test("a rule's own capability check comes first; an explicit model is not gated", () => {
    const d = decide(JSON_OBJECT, {
      policy: {
        routing: {
          rules: [{
            name: "vision-only",
            model: "openai/json",
            fallbacks: ["openai/vision"],
            requires_capabilities: { images: true },
          }],
        },
      },
    });
    assert.ok(d.ok);
    assert.equal(
      d.value.routing.skipped[0].reason,
      "missing capability 'images'",
    );
    const explicit = decide(IMAGES, {
      input: { text: "x", explicit_model: "openai/mini" },
    });
    assert.ok(explicit.ok);
    assert.equal(explicit.value.routing.model.model, "mini");
  });
});
