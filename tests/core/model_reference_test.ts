import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  isWellFormedProviderId,
  parseModelReference,
  referenceProblem,
} from "../../src/core/model_reference.ts";

describe("model references", () => {
  test("split at the first slash", () => {
    assert.deepEqual(parseModelReference("openai/gpt-4o"), { provider: "openai", model: "gpt-4o" });
    assert.deepEqual(parseModelReference("openai-compat:box/org/model:8b"), {
      provider: "openai-compat:box",
      model: "org/model:8b",
    });
    for (const bad of ["gpt-4o", "/gpt", "openai/", "", "/"]) {
      assert.equal(parseModelReference(bad), null, bad);
    }
  });

  const ids: [string, boolean][] = [
    ["openai", true],
    ["ollama", true],
    ["my-provider_2.x", true],
    ["openai-compat:lab", true],
    ["openai-compat:my.box-1", true],
    ["OpenAI", false],
    ["open ai", false],
    ["", false],
    ["-openai", false],
    ["openai-compat:", false],
    ["openai-compat:Bad Name!", false],
    ["other:name", false],
  ];
  for (const [id, ok] of ids) {
    test(`provider id '${id}' is ${ok ? "" : "not "}well formed`, () => {
      assert.equal(isWellFormedProviderId(id), ok);
    });
  }

  test("the first problem of form: reference, then provider", () => {
    assert.equal(referenceProblem("nothing"), "invalid_model_reference");
    assert.equal(referenceProblem("Bad/x"), "invalid_provider_name");
    assert.equal(referenceProblem("good/x"), null);
    assert.equal(referenceProblem("good/x", () => false), "invalid_provider_name");
  });
});
