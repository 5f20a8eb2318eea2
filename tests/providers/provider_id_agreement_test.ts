/**
 * One provider-id grammar: the configuration loader, the provider registry
 * and the routing core's reference checks accept exactly the same
 * `openai-compat:<name>` ids, so no id can be configured that a model
 * reference cannot name, or named that configuration would refuse.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { loadConfig } from "../../src/config.ts";
import { isWellFormedProviderId, referenceProblem } from "../../src/core/model_reference.ts";
import { buildRegistry } from "../../src/providers/registry.ts";

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "switchyard-provider-id-"));
});
after(() => rm(dir, { recursive: true, force: true }));

async function configAccepts(id: string): Promise<boolean> {
  const path = join(dir, "switchyard.toml");
  await writeFile(path, `[router.providers.${JSON.stringify(id)}]\nbase_url = "http://h/v1"\n`);
  try {
    await loadConfig(["--config", path], {});
    return true;
  } catch {
    return false;
  }
}

const registryAccepts = (id: string) =>
  buildRegistry({ providers: { [id]: { base_url: "http://h/v1" } } }).ok;

const NAMES: Array<[string, boolean]> = [
  ["lab", true],
  ["lm_studio-2", true],
  ["0box", true],
  ["a".repeat(63), true],
  ["a".repeat(64), false],
  ["my.box", false],
  ["lm.studio.local", false],
  ["Bad", false],
  ["bad name", false],
  ["-lead", false],
  ["_lead", false],
  ["a:b", false],
  ["", false],
];

describe("openai-compat:<name> ids", () => {
  for (const [name, ok] of NAMES) {
    const id = `openai-compat:${name}`;
    test(`'${id.slice(0, 40)}' is ${ok ? "accepted" : "refused"} by config, registry and core`, async () => {
      assert.equal(await configAccepts(id), ok, "config");
      assert.equal(registryAccepts(id), ok, "registry");
      assert.equal(isWellFormedProviderId(id), ok, "core");
      assert.equal(referenceProblem(`${id}/model`) === null, ok, "model reference");
    });
  }
});
