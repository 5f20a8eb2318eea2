/**
 * `switchyard policy test`: a folder of cases routed offline by the service's
 * own core against a catalog snapshot, compared byte for byte with golden
 * files (fixtures/policy_cases). The goldens are also what the running
 * service's preview answers for the same requests and catalog, so offline and
 * online agree.
 */
import assert from "node:assert/strict";
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { createClient, SwitchyardError } from "../../clients/typescript/src/index.ts";
import { loadPolicy } from "../../clients/typescript/src/cli/policy_file.ts";
import type { TestApp } from "../support/app.ts";
import { runCli } from "../support/cli_process.ts";
import { createEngineApp } from "../support/engine_app.ts";
import { type Served, serveHandler } from "../support/serve_handler.ts";

const CASES = fileURLToPath(new URL("../../fixtures/policy_cases/", import.meta.url));
let dir: string;
let app: TestApp;
let served: Served;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "switchyard-policy-"));
  await cp(CASES, dir, { recursive: true });
  // The catalog of fixtures/policy_cases/catalog.json: openai and ollama with configured models.
  app = await createEngineApp({ openai: "http://127.0.0.1:9", ollama: "http://127.0.0.1:9" });
  served = await serveHandler(app.handler);
});
after(async () => {
  await served.close();
  await app.close();
  await rm(dir, { recursive: true, force: true });
});

const policyTest = (...extra: string[]) => runCli(["policy", "test", dir, ...extra], { env: {} });

describe("switchyard policy test", () => {
  test("every case of the folder matches its golden decision", async () => {
    const r = await policyTest();
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^ok {6}chat\.json$/m);
    assert.match(r.stdout, /^ok {6}unknown-effort\.json$/m);
    assert.match(r.stdout, /5 passed, 0 failed\n$/);
  });

  test("the goldens are what the service's preview answers for the same requests", async () => {
    const client = createClient({ baseUrl: served.url });
    await client.auth.bootstrap();
    await client.auth.signIn();
    const { id } = await client.sessions.create({ title: "policy" });
    const policy = await loadPolicy(join(CASES, "policy.toml"));
    const cases = (await readdir(CASES)).filter((f) =>
      /^[a-z-]+\.json$/.test(f) && f !== "catalog.json"
    );
    assert.equal(cases.length, 5);
    for (const file of cases) {
      const c = JSON.parse(await readFile(join(CASES, file), "utf8"));
      const golden = JSON.parse(
        await readFile(join(CASES, file.replace(".json", ".golden.json")), "utf8"),
      );
      const keys = Object.fromEntries(
        (c.credentials ?? ["openai"]).map((p: string) => [p, "sk-test"]),
      );
      const session = createClient({
        baseUrl: served.url,
        token: client.auth.credentials().token,
        providerKeys: keys,
      })
        .session(id);
      const answer = await session.preview({ policy, ...c.request }).catch((
        error: SwitchyardError,
      ) => ({
        error: {
          status: error.status,
          code: error.code,
          message: error.message,
          details: error.details,
        },
      }));
      assert.equal(JSON.stringify(answer), JSON.stringify(golden), file);
    }
  });

  test("a changed case fails with a diff of the decision, and --update accepts it", async () => {
    const file = join(dir, "review.json");
    const c = JSON.parse(await readFile(file, "utf8"));
    c.request.input.text = "please look at my change";
    await writeFile(file, JSON.stringify(c, null, 2));
    await rm(join(dir, "chat.golden.json"));

    const failing = await policyTest();
    assert.equal(failing.code, 1);
    assert.match(failing.stdout, /^FAIL {4}chat\.json: no golden file; run with --update/m);
    assert.match(
      failing.stdout,
      /^FAIL {4}review\.json: the decision differs from review\.golden\.json/m,
    );
    assert.match(failing.stdout, /^- {5}"model": "gpt-4o",$/m);
    assert.match(failing.stdout, /^\+ {5}"model": "gpt-4o-mini",$/m);
    assert.match(failing.stdout, /^- {5}"matched_rule": "reviews",$/m);
    assert.match(failing.stdout, /3 passed, 2 failed\n$/);

    const updated = await policyTest("--update");
    assert.equal(updated.code, 0, updated.stdout);
    assert.match(updated.stdout, /^written chat\.json → chat\.golden\.json$/m);
    assert.match(updated.stdout, /^updated review\.json → review\.golden\.json$/m);
    const golden = JSON.parse(await readFile(join(dir, "review.golden.json"), "utf8"));
    assert.equal(golden.routing.model, "gpt-4o-mini");
    assert.equal((await policyTest()).code, 0);
  });

  test("a folder without a catalog snapshot says how to make one", async () => {
    const empty = await mkdtemp(join(tmpdir(), "switchyard-policy-empty-"));
    try {
      const r = await runCli(["policy", "test", empty], { env: {} });
      assert.equal(r.code, 1);
      assert.match(r.stderr, /switchyard models --save/);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
