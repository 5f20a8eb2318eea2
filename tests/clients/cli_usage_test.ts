/**
 * `switchyard usage` without a session (decisions.md §13): the month's spend
 * per day and per model, and what is left of the budget, through the CLI as
 * a user runs it.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { TestApp } from "../support/app.ts";
import { runCli } from "../support/cli_process.ts";
import { type FakeProvider, startFakeProvider } from "../support/fake_provider.ts";
import { createEngineApp, openAiReply } from "../support/engine_app.ts";
import { type Served, serveHandler } from "../support/serve_handler.ts";
import { setUserBudget } from "../../src/store/budgets.ts";

let openai: FakeProvider;
let app: TestApp;
let served: Served;
let home: string;

before(async () => {
  openai = await startFakeProvider();
  app = await createEngineApp({
    openai: openai.url,
    ollama: "http://127.0.0.1:9",
  });
  served = await serveHandler(app.handler);
  home = await mkdtemp(join(tmpdir(), "switchyard-cli-usage-"));
});
after(async () => {
  await served.close();
  await app.close();
  await openai.close();
  await rm(home, { recursive: true, force: true });
});

const cli = (args: string[]) =>
  runCli(args, {
    cwd: home,
    env: {
      XDG_CONFIG_HOME: home,
      SWITCHYARD_URL: served.url,
      OPENAI_API_KEY: "sk-test-openai",
    },
  });

describe("switchyard usage", () => {
  test("shows the month's spend per day and model and what is left of the budget", async () => {
    assert.equal((await cli(["login"])).code, 0);
    const creds = JSON.parse(
      await readFile(join(home, "switchyard", "credentials.json"), "utf8"),
    );
    const none = await cli(["usage"]);
    assert.equal(none.code, 0, none.stderr);
    assert.match(
      none.stdout,
      /^2026-01-01 to 2026-01-31: 0 requests, 0 in, 0 out, 0 USD$/m,
    );
    assert.match(none.stdout, /^budget: {2}none$/m);

    await setUserBudget(
      app.db,
      creds.user_id,
      { daily: "1", monthly: "20" },
      app.clock.now(),
    );
    openai.enqueue(openAiReply({ text: "hi", input: 1000, output: 1000 }));
    const policy = join(home, "policy.json");
    await writeFile(
      policy,
      JSON.stringify({
        routing: { default: { model: "openai/gpt-4o-mini" } },
        privacy: { remote: { mode: "allow" } },
      }),
    );
    const chat = await cli(["chat", "--buffered", "--policy", policy, "hello"]);
    assert.equal(chat.code, 0, chat.stderr);
    const r = await cli(["usage"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /^2026-01-01 to 2026-01-31: 1 requests, 1000 in, 1000 out, 0.00075 USD$/m,
    );
    assert.match(
      r.stdout,
      /^ {2}daily {4}0.99925 of 1 USD left \(0.00075 spent, 0 reserved; resets 2026-01-02T00:00:00.000Z\)$/m,
    );
    assert.match(r.stdout, /^ {2}monthly {2}19.99925 of 20 USD left/m);
    assert.match(
      r.stdout,
      /^ {2}2026-01-01 {2}0.00075 USD {2}1 requests, 1000 in, 1000 out$/m,
    );
    assert.match(
      r.stdout,
      /^ {2}openai\/gpt-4o-mini: 1 requests, 0.00075 USD$/m,
    );
    const j = await cli([
      "usage",
      "--json",
      "--from",
      "2026-01-01",
      "--to",
      "2026-01-01",
    ]);
    assert.equal(JSON.parse(j.stdout).total.estimated_cost, "0.00075");
    const bad = await cli(["usage", "--from", "2026-13-01"]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /invalid_request/);
  });
});
