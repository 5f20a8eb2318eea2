/**
 * The console's API keys page in real Chromium against the service on a free
 * port: a new key is shown once and signs in; revoking one asks first, and
 * after Cancel nothing changed; after confirming, the key is refused.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { readWebAssets } from "../../src/http/web_assets.ts";
import { type Account, call, createTestApp, signUp, type TestApp } from "../support/app.ts";
import { launchChromium } from "../support/browser.ts";
import { type Served, serveHandler } from "../support/http_server.ts";

describe("console API keys page in Chromium", () => {
  let app: TestApp;
  let alice: Account;
  let served: Served;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  before(async () => {
    // The committed build, which `deno task console:check` holds to the sources.
    const webAssets = await readWebAssets(new URL("../../web/", import.meta.url));
    assert.ok(webAssets, "the console was built");
    app = await createTestApp({ webAssets });
    alice = await signUp(app);
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
  });

  const signIn = (apiKey: string) =>
    call(app, "POST", "/api/v1/auth/sign-in", { headers: { "x-router-api-key": apiKey } });

  test("a key is made and shown once, and revoked only after confirming", async () => {
    await page.goto(`${served.url}/console`);
    await page.getByLabel("API key").fill(alice.apiKey);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByRole("heading", { name: "API keys" }).waitFor();
    await page.getByRole("row", { name: /bootstrap/ }).waitFor();

    const form = page.getByRole("form", { name: "Create an API key" });
    await form.getByLabel("Name").fill("laptop");
    await form.getByRole("button", { name: "Create key" }).click();
    const shown = page.getByLabel("New API key", { exact: true });
    await shown.waitFor();
    const key = (await shown.innerText()).trim();
    assert.match(key, /^sk-router-api01-[0-9a-f]{32}-[A-Za-z0-9]{64}$/);
    assert.equal((await signIn(key)).status, 200);
    await page.getByRole("button", { name: "Done" }).click();
    await shown.waitFor({ state: "hidden" });
    await page.getByRole("row", { name: /laptop/ }).waitFor();

    await page.getByRole("button", { name: "Revoke laptop" }).click();
    const dialog = page.getByRole("dialog", { name: 'Revoke "laptop"?' });
    await dialog.waitFor();
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "hidden" });
    assert.equal((await signIn(key)).status, 200, "cancelled: the key still works");

    await page.getByRole("button", { name: "Revoke laptop" }).click();
    await dialog.getByRole("button", { name: "Revoke for good" }).click();
    await page.getByRole("status").filter({ hasText: 'Revoked "laptop".' }).waitFor();
    await page.getByRole("row", { name: /laptop/ }).filter({ hasText: "revoked" }).waitFor();
    assert.equal((await signIn(key)).body.error.code, "invalid_api_key");
    assert.equal(
      await page.getByRole("button", { name: "Revoke bootstrap" }).count(),
      1,
      "the other key is untouched",
    );
    assert.deepEqual(problems, []);
  });
});
