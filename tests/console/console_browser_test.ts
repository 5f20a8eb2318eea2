/**
 * The web console in real Chromium against the service on a free port, its providers fakes:
 * sign in, find a session by title, open it, read the decision card of a turn that fell back
 * (with the fallback's reason) and of a turn of two model calls with a file read between them,
 * page through the trace, see the usage charts with the right
 * totals, list the catalog with a typed-in provider key, run a preview and change it, read the
 * API reference, and sign out (the token is revoked). Every page loads only from the service.
 */
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { readWebAssets } from "../../src/http/web_assets.ts";
import { type Account, call, signUp, type TestApp } from "../support/app.ts";
import { launchChromium } from "../support/browser.ts";
import { createEngineApp } from "../support/engine_app.ts";
import { type FakeProvider, startFakeProvider } from "../support/fake_provider.ts";
import { type Served, serveHandler } from "../support/http_server.ts";
import {
  type ConsoleData,
  makeConsoleData,
  OPENAI_KEY,
  SEALED_KEY,
  SEALED_REPLY,
} from "./console_data.ts";

/** The little of a DOM canvas the test reads (the test itself is type-checked without the DOM). */
interface Canvas {
  width: number;
  height: number;
  getContext(kind: "2d"): { getImageData(...box: number[]): { data: Uint8ClampedArray } };
}

const SHOTS = new URL("../../test-output/console/", import.meta.url);

describe("web console in Chromium", () => {
  let openai: FakeProvider;
  let ollama: FakeProvider;
  let app: TestApp;
  let alice: Account;
  let served: Served;
  let browser: Browser;
  let page: Page;
  let data: ConsoleData;
  const requested: string[] = [];
  const problems: string[] = [];

  const shot = (name: string, fullPage = true) =>
    page.screenshot({ path: new URL(`${name}.png`, SHOTS).pathname, fullPage });

  before(async () => {
    // The committed build, which `deno task console:check` holds to the sources.
    const webAssets = await readWebAssets(new URL("../../web/", import.meta.url));
    assert.ok(webAssets, "the console was built");
    openai = await startFakeProvider();
    ollama = await startFakeProvider();
    app = await createEngineApp({ openai: openai.url, ollama: ollama.url, webAssets });
    alice = await signUp(app);
    data = await makeConsoleData(app, alice, { openai, ollama });
    served = await serveHandler(app.handler);
    await mkdir(SHOTS, { recursive: true });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(30_000);
    page.on("request", (r) => requested.push(r.url()));
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  });

  after(async () => {
    await browser?.close();
    await served?.close();
    await app?.close();
    await openai?.close();
    await ollama?.close();
  });

  test("signs in with an API key; the token lives in sessionStorage only", async () => {
    await page.goto(`${served.url}/console`);
    await page.getByLabel("API key").fill("sk-router-api01-not-a-real-key");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").filter({ hasText: "invalid_api_key" }).waitFor();
    await shot("sign-in");
    await page.getByLabel("API key").fill(alice.apiKey);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Sessions" }).waitFor();
    const stored = await page.evaluate(() => ({
      session: sessionStorage.getItem("switchyard.token"),
      local: localStorage.length,
    }));
    assert.match(stored.session ?? "", /^[0-9a-f]{32}-[a-z0-9]{64}$/);
    assert.equal(stored.local, 0);
  });

  test("finds a session by title; archived ones show on request", async () => {
    const list = page.getByRole("list", { name: "Sessions" });
    await list.getByRole("link", { name: "Grocery list" }).waitFor();
    await page.getByLabel("Title contains").fill("quarterly");
    await list.getByRole("link", { name: "Grocery list" }).waitFor({ state: "detached" });
    assert.deepEqual(await list.getByRole("listitem").allInnerTexts().then((t) => t.length), 1);
    await page.getByLabel(/Show archived/).check();
    await list.locator(".title", { hasText: "Old quarterly draft" }).waitFor();
    await shot("sessions");
    await page.getByLabel(/Show archived/).uncheck();
    await list.getByRole("link", { name: data.title }).click();
    await page.getByRole("heading", { name: data.title, level: 1 }).waitFor();
  });

  test("the session shows replies labelled with their model and the fallback's reason", async () => {
    const labels = page.locator("ol.messages .model-label");
    await labels.first().waitFor();
    assert.deepEqual(await labels.allInnerTexts(), ["ollama/qwen3:8b", "openai/gpt-4o-mini"]);
    const card = page.getByRole("region", { name: "Decision for turn 1" });
    await card.getByText("Fallbacks taken").waitFor();
    await card.getByText("chat · inferred · confidence low").waitFor();
    const text = await card.innerText();
    assert.match(text, /openai\/gpt-4o-mini: invocation of 'openai\/gpt-4o-mini' failed/);
    assert.match(text, /provider_unavailable/);
    assert.match(text, /HTTP 503/);
    // Classification, the context left out with its reason, and the spend.
    assert.match(text, /chat · inferred · confidence low/);
    assert.match(text, /Context included \(2\)\nfile docs\/q3\.md — within budget/);
    assert.match(text, /0 USD · 26 in \/ 12 out tokens/);
  });

  test("a prompt answered after a tool call reads as one turn: two model calls, the call between", async () => {
    // Two turns, one per prompt: the review's call that asked for a file is not a turn apart.
    assert.equal(await page.getByRole("region", { name: /Decision for turn/ }).count(), 2);
    assert.equal(await page.getByText("Turns without a message").count(), 0);
    const review = page.getByRole("region", { name: "Decision for turn 2" });
    const reviewText = await review.innerText();
    assert.match(reviewText, /Turn 2 of 2\s+2 model calls · 1 tool call/);
    const calls = review.getByRole("region", { name: /^Model call \d of 2$/ });
    assert.equal(await calls.count(), 2);
    assert.match(await calls.nth(0).innerText(), /review · inferred · confidence medium/);
    assert.match(await calls.nth(0).innerText(), /0\.0000078 USD · 24 in \/ 7 out/);
    const second = await calls.nth(1).innerText();
    assert.match(second, /by rule 'reviews'[\s\S]*0\.00036 USD · 1,200 in \/ 300 out/);
    // The answering call's context names the file read by what it did, not by its call id.
    assert.match(second, /tool_call read_file docs\/q3\.md — required/);
    // A remote model never sees the restricted file, nor the reply made from it; the card says so.
    assert.match(
      second,
      /Context excluded \(2\)\nfile secrets\/keys\.env — restricted\nmessage 2 — restricted/,
    );
    // The tool call sits between the two model calls, with its arguments.
    const tool = review.locator("p.tool-step");
    assert.match(await tool.innerText(), /Tool call read_file docs\/q3\.md — completed/);
    assert.match(await tool.innerText(), /arguments \{"path":"docs\/q3\.md"\}/);
    const order = await review.locator("section.model-call, p.tool-step").evaluateAll((nodes) =>
      nodes.map((n) => (n as unknown as { className: string }).className)
    );
    assert.deepEqual(order, ["model-call", "tool-step", "model-call"]);
    // The turn's total is the exact sum of its calls: 0.0000078 + 0.00036.
    assert.match(
      await review.locator("p.turn-total").innerText(),
      /Turn total 0\.0003678 USD · 1,224 in \/ 307 out tokens/,
    );
    await shot("session");
  });

  test("the session page reads on a narrow screen and starts with a skip link for keyboards", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.getByRole("region", { name: /Decision for turn/ }).first().waitFor();
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate("document.activeElement.textContent"), "Skip to content");
    const overflow = await page.evaluate<number>(
      "document.documentElement.scrollWidth - document.documentElement.clientWidth",
    );
    assert.ok(overflow <= 0, `no sideways scrolling (${overflow}px too wide)`);
    await shot("session-narrow");
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  test("pages through the raw trace", async () => {
    const trace = page.getByRole("region", { name: "Trace" });
    await trace.getByText(`Events 1–10 of ${data.traceEvents}`).waitFor();
    assert.ok(data.traceEvents > 10);
    await trace.getByRole("button", { name: "Next events" }).click();
    await trace.getByText(`Events 11–${Math.min(20, data.traceEvents)} of ${data.traceEvents}`)
      .waitFor();
    assert.equal(
      await trace.locator("ol.events > li").count(),
      Math.min(10, data.traceEvents - 10),
    );
    await trace.getByRole("button", { name: "Previous events" }).click();
    await trace.getByText(`Events 1–10 of ${data.traceEvents}`).waitFor();
  });

  test("usage charts are drawn with the session's totals", async () => {
    await page.locator("p.meta").getByRole("link", { name: "Usage" }).click();
    const tokens = page.locator("figure.chart", { hasText: "Tokens by model" });
    await tokens.locator("canvas").waitFor();
    assert.equal(await tokens.getAttribute("data-total"), String(data.totalTokens));
    const cost = page.locator("figure.chart", { hasText: "Cost by model" });
    assert.equal(await cost.getAttribute("data-total"), data.totalCost);
    assert.equal(data.totalCost, "0.0003678");
    assert.match(await page.locator("dl.totals").innerText(), /0\.0003678 USD/);
    // The canvas has bars on it, not just a blank area.
    const inked = await tokens.locator("canvas").evaluate((c) => {
      const canvas = c as unknown as Canvas;
      const pixels = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
      let n = 0;
      for (let i = 0; i < pixels.length; i += 4) if (pixels[i + 3] > 0 && pixels[i + 2] > 120) n++;
      return n;
    });
    assert.ok(inked > 500, `the chart drew bars (${inked} blue pixels)`);
    await shot("usage");
  });

  test("the catalog lists models once a provider key is typed in, and says why others are not", async () => {
    await page.getByRole("link", { name: "Models and providers" }).click();
    await page.getByText("missing credentials").first().waitFor();
    assert.equal(await page.getByRole("row", { name: /openai\/gpt-4o-mini/ }).count(), 0);
    await page.getByLabel(/\(openai\)/).fill(OPENAI_KEY);
    await page.getByRole("button", { name: "Use these keys" }).click();
    const row = page.getByRole("row", { name: /openai\/gpt-4o-mini/ });
    await row.waitFor();
    assert.match(await row.innerText(), /0\.15 USD/);
    const unavailable = await page.getByRole("region", { name: "Unavailable providers" })
      .innerText();
    assert.match(unavailable, /anthropic: missing credentials/);
    assert.doesNotMatch(unavailable, /openai/);
    const kept = await page.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }));
    assert.ok(!kept.includes(OPENAI_KEY), "the provider key is not stored");
    await shot("models");
  });

  test("the preview playground shows the decision and cost range change as the body changes", async () => {
    await page.getByRole("link", { name: "Preview" }).click();
    await page.getByLabel("Session").selectOption({ label: data.title });
    const model = page.locator(".chosen-model");
    await model.waitFor();
    assert.equal(await model.innerText(), "openai/gpt-4o-mini");
    const range = page.locator(".cost-range");
    const before = await range.innerText();
    await page.getByLabel("Prompt", { exact: true }).fill(
      "Please review this one as well.\n" + "word ".repeat(400),
    );
    await page.locator(".chosen-model", { hasText: "openai/gpt-4o" }).waitFor();
    await page.locator(".cost-range .changed").waitFor();
    assert.notEqual(await range.innerText(), before);
    assert.match(await page.locator("section.decision").innerText(), /by rule 'reviews'/);
    await shot("preview");
    await page.getByLabel("Explicit model (provider/model)").fill("ollama/qwen3:8b");
    await page.locator(".chosen-model", { hasText: "ollama/qwen3:8b" }).waitFor();
    await page.getByText("explicit model override 'ollama/qwen3:8b'").waitFor();
  });

  test("an encrypted session shows sealed content as sealed until its key is pasted", async () => {
    await page.getByRole("link", { name: "Sessions", exact: true }).click();
    await page.getByRole("list", { name: "Sessions" }).getByRole("link", { name: "Sealed notes" })
      .click();
    const sealedNote = page.locator("ol.messages .sealed-note").first();
    await sealedNote.waitFor();
    assert.match(await sealedNote.innerText(), /Sealed \(AES-256-GCM, key notes-key-1\)/);
    assert.deepEqual(await page.locator("ol.messages .model-label").allInnerTexts(), [
      "openai/gpt-4o-mini",
    ]);
    const card = page.getByRole("region", { name: /Decision for turn/ }).first();
    await card.getByText(/sealed events?: details below come from their readable columns/)
      .waitFor();
    assert.equal(await page.getByText(SEALED_REPLY).count(), 0);
    await page.getByLabel("Session key (base64, AES-256-GCM)").fill(
      btoa(String.fromCharCode(...SEALED_KEY)),
    );
    await page.getByRole("button", { name: "Open here" }).click();
    await page.locator("ol.messages").getByText(SEALED_REPLY).waitFor();
    await card.getByText("no rule matched; default intent 'chat'").waitFor();
    await shot("session-sealed");
    // Its usage is sealed too: only the request counts are readable.
    await page.locator("p.meta").getByRole("link", { name: "Usage" }).click();
    const requests = page.locator("figure.chart", { hasText: "Requests by model" });
    await requests.waitFor();
    assert.equal(await requests.getAttribute("data-total"), "1");
    assert.match(await page.locator("dl.totals").innerText(), /Estimated cost\nsealed/);
  });

  test("the API reference renders the OpenAPI document", async () => {
    // Swagger UI is 2 MB of script: give a busy machine time to parse it.
    await page.goto(`${served.url}/docs`, { timeout: 90_000 });
    await page.getByText("Health and running version").first().waitFor({ timeout: 90_000 });
    // Swagger UI's title heading also holds the version badges ("Switchyard 0.1.0-alpha.1 OAS 3.1").
    await page.getByRole("heading", { name: /^Switchyard\b/ }).first().waitFor();
    await shot("docs", false);
    await page.goto(`${served.url}/console#/sessions`);
    await page.getByRole("heading", { name: "Sessions" }).waitFor();
  });

  test("sessions are renamed, archived, restored and deleted only after confirming", async () => {
    const list = page.getByRole("list", { name: "Sessions" });
    const titles = async () => {
      const r = await call(app, "GET", "/api/v1/sessions", { token: alice.token });
      return r.body.sessions.map((s: { title: string; archived: boolean }) =>
        `${s.title}${s.archived ? " (archived)" : ""}`
      ).sort();
    };
    await page.getByRole("button", { name: "Rename Grocery list" }).click();
    await page.getByLabel('New title for "Grocery list"').fill("Groceries");
    await page.keyboard.press("Enter");
    await list.getByRole("link", { name: "Groceries" }).waitFor();
    await page.getByRole("button", { name: "Archive Groceries" }).click();
    await page.getByRole("status").filter({ hasText: 'Archived "Groceries".' }).waitFor();
    assert.ok((await titles()).includes("Groceries (archived)"));
    await page.getByLabel(/Show archived/).check();
    await page.getByRole("button", { name: "Restore Groceries" }).click();
    await list.getByRole("link", { name: "Groceries" }).waitFor();
    await page.getByRole("button", { name: "Delete Groceries" }).click();
    const dialog = page.getByRole("dialog", { name: 'Delete "Groceries"?' });
    await dialog.waitFor();
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "hidden" });
    assert.ok((await titles()).includes("Groceries"));
    await page.getByRole("button", { name: "Delete Groceries" }).click();
    await dialog.getByRole("button", { name: "Delete for good" }).click();
    await page.getByRole("status").filter({ hasText: 'Deleted "Groceries".' }).waitFor();
    assert.ok(!(await titles()).some((t: string) => t.startsWith("Groceries")));
  });

  test("the policies page lists stored policies and shows each version as TOML", async () => {
    for (const model of ["openai/gpt-4o-mini", "openai/gpt-4o"]) {
      const stored = await call(app, "PUT", "/api/v1/policies/team", {
        token: alice.token,
        body: { routing: { default: { model } }, tools: { permissions: { shell: "ask" } } },
      });
      assert.equal(stored.status, 201);
    }
    await page.getByRole("link", { name: "Policies" }).click();
    const row = page.getByRole("row", { name: /team/ });
    await row.waitFor();
    assert.match(await row.innerText(), /team\s+2/);
    await page.getByRole("link", { name: "team" }).click();
    const toml = page.getByLabel("Policy as TOML");
    await toml.waitFor();
    assert.match(await toml.innerText(), /\[routing\.default\]\nmodel = "openai\/gpt-4o"\n/);
    await page.getByRole("link", { name: "version 1" }).click();
    await page.getByRole("heading", { name: /^Version 1/ }).waitFor();
    assert.match(await toml.innerText(), /model = "openai\/gpt-4o-mini"/);
    assert.match(await toml.innerText(), /^\[tools\.permissions\]\nshell = "ask"$/m);
    await shot("policies");
  });

  test("signing out revokes the token and forgets it", async () => {
    const token = await page.evaluate(() => sessionStorage.getItem("switchyard.token"));
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("API key").waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.getItem("switchyard.token")), null);
    const me = await call(app, "GET", "/api/v1/auth/me", { token: token! });
    assert.equal(me.status, 401);
    assert.equal(me.body.error.code, "token_revoked");
  });

  test("the pages loaded nothing from outside the service and logged no errors", () => {
    const outside = requested.filter((u) =>
      !u.startsWith(served.url) && !u.startsWith("data:") && !u.startsWith("blob:")
    );
    assert.deepEqual(outside, []);
    assert.ok(requested.some((u) => u.includes("/docs/swagger-ui-")));
    assert.deepEqual(problems.filter((p) => !p.includes("401")), []);
  });
});
