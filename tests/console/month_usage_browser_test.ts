/**
 * The console's usage page without a session (decisions.md §13): the month's
 * spend per day drawn with uPlot against the daily budget, per model, and
 * what is left of the budget, in Chromium against the committed build.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { readWebAssets } from "../../src/http/web_assets.ts";
import { setUserBudget } from "../../src/store/budgets.ts";
import { type Account, call, signUp, type TestApp } from "../support/app.ts";
import { launchChromium } from "../support/browser.ts";
import { createEngineApp, openAiReply } from "../support/engine_app.ts";
import { type FakeProvider, startFakeProvider } from "../support/fake_provider.ts";
import { type Served, serveHandler } from "../support/http_server.ts";

describe("the console's usage across sessions in Chromium", () => {
  let openai: FakeProvider;
  let app: TestApp;
  let alice: Account;
  let served: Served;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  before(async () => {
    const webAssets = await readWebAssets(new URL("../../web/", import.meta.url));
    assert.ok(webAssets, "the console was built");
    openai = await startFakeProvider();
    app = await createEngineApp({ openai: openai.url, ollama: "http://127.0.0.1:9", webAssets });
    alice = await signUp(app);
    await setUserBudget(app.db, alice.userId, { daily: "0.01", monthly: "0.25" }, app.clock.now());
    const session = await call(app, "POST", "/api/v1/sessions", {
      token: alice.token,
      body: { title: "spend" },
    });
    openai.enqueue(openAiReply({ text: "hi", input: 10_000, output: 1_000 }));
    const r = await call(app, "POST", `/api/v1/sessions/${session.body.session.id}/execute`, {
      token: alice.token,
      headers: { "x-router-provider-openai-api-key": "sk-test-openai" },
      body: {
        input: { text: "hello" },
        policy: {
          routing: { default: { model: "openai/gpt-4o-mini" } },
          privacy: { remote: { mode: "allow" } },
        },
      },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    served = await serveHandler(app.handler);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(30_000);
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  });

  after(async () => {
    await browser?.close();
    await served?.close();
    await app?.close();
    await openai?.close();
  });

  test("draws the month's spend per day against the budget and shows what is left", async () => {
    await page.goto(`${served.url}/console`);
    await page.getByLabel("API key").fill(alice.apiKey);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Sessions" }).waitFor();
    await page.getByRole("link", { name: "Usage" }).first().click();
    await page.getByRole("heading", { name: "All sessions, 2026-01-01 to 2026-01-31" }).waitFor();
    const chart = page.locator("figure.chart", { hasText: "Spend per day" });
    await chart.locator("canvas").waitFor();
    // 10000 × 0.15 / 10^6 + 1000 × 0.6 / 10^6
    assert.equal(await chart.getAttribute("data-total"), "0.0021");
    assert.equal(await chart.getAttribute("data-limit"), "0.01");
    const budget = page.getByRole("table", { name: "Budget" });
    assert.match(
      await budget.innerText(),
      /Today \(UTC\)\s+0\.01 USD\s+0\.0021 USD\s+0 USD\s+0\.0079 USD/,
    );
    assert.match(
      await budget.innerText(),
      /This month \(UTC\)\s+0\.25 USD\s+0\.0021 USD\s+0 USD\s+0\.2479 USD/,
    );
    const byModel = page.getByRole("table", { name: "By model" });
    assert.match(
      await byModel.innerText(),
      /openai\/gpt-4o-mini\s+1\s+10,000\s+0\s+0\s+1,000\s+0\.0021 USD/,
    );
    assert.deepEqual(problems, []);
  });
});
