import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  checkProviderId,
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
    ["my-provider_2", true],
    ["openai-compat:lab", true],
    ["openai-compat:my-box_1", true],
    [`openai-compat:${"a".repeat(63)}`, true],
    [`openai-compat:${"a".repeat(64)}`, false],
    ["a".repeat(64), false],
    ["my-provider_2.x", false],
    ["openai-compat:my.box-1", false],
    ["openai-compat:a:b", false],
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

  test("names the form of an id: bare, compatible instance with its name, or invalid", () => {
    assert.deepEqual(checkProviderId("mistral"), { kind: "bare", id: "mistral" });
    assert.deepEqual(checkProviderId("openai-compat:vllm"), {
      kind: "compat",
      id: "openai-compat:vllm",
      name: "vllm",
    });
    assert.deepEqual(checkProviderId("openai-compat:v.llm"), {
      kind: "invalid",
      id: "openai-compat:v.llm",
    });
  });

  test("the first problem of form: reference, then provider", () => {
    assert.equal(referenceProblem("nothing"), "invalid_model_reference");
    assert.equal(referenceProblem("Bad/x"), "invalid_provider_name");
    assert.equal(referenceProblem("good/x"), null);
    assert.equal(referenceProblem("openai-compat:my.box/x"), "invalid_provider_name");
    assert.equal(referenceProblem("good/x", () => false), "invalid_provider_name");
  });
});
