/**
 * A turn's `Server-Timing` phases as Chromium sees them: a page of the
 * service (the console) runs a turn with `fetch`; the browser's network layer
 * hands the header over (what its network panel shows under Timing), and its
 * Performance API parses the same phases into the resource entry's
 * `serverTiming`, each with a duration no less than zero.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { readWebAssets } from "../../src/http/web_assets.ts";
import { type Account, call, signUp, type TestApp } from "../support/app.ts";
import { launchChromium } from "../support/browser.ts";
import { createEngineApp, openAiReply } from "../support/engine_app.ts";
import { type FakeProvider, startFakeProvider } from "../support/fake_provider.ts";
import { type Served, serveHandler } from "../support/http_server.ts";

const KEY = "sk-test-server-timing-browser-1234";
const POLICY = {
  routing: { default: { model: "openai/gpt-4o-mini" }, rules: [] },
  privacy: { remote: { mode: "allow" } },
};
/** The little of a resource timing entry the test reads (it is type-checked without the DOM). */
interface ResourceEntry {
  serverTiming?: { name: string; duration: number }[];
}

const TURN_PHASES = [
  "auth",
  "parse",
  "catalog",
  "claim",
  "decision",
  "budget",
  "write",
];

describe("Server-Timing in Chromium", () => {
  let openai: FakeProvider;
  let app: TestApp;
  let alice: Account;
  let served: Served;
  let browser: Browser;
  let page: Page;

  before(async () => {
    const webAssets = await readWebAssets(
      new URL("../../web/", import.meta.url),
    );
    assert.ok(webAssets, "the console was built");
    openai = await startFakeProvider();
    app = await createEngineApp({
      openai: openai.url,
      ollama: "http://127.0.0.1:9",
      webAssets,
    });
    alice = await signUp(app);
    served = await serveHandler(app.handler);
    browser = await launchChromium();
    page = await browser.newPage();
    page.setDefaultTimeout(30_000);
  });

  after(async () => {
    await browser?.close();
    await served?.close();
    await app?.close();
    await openai?.close();
  });

  test("a turn's answer shows its phases in the network layer and in the Performance API", async () => {
    const created = await call(app, "POST", "/api/v1/sessions", {
      token: alice.token,
      body: { title: "timing" },
    });
    const path = `/api/v1/sessions/${created.body.session.id}/execute`;
    openai.enqueue(openAiReply({ text: "hi" }));
    await page.goto(`${served.url}/console`);
    const answered = page.waitForResponse((r) => r.url().endsWith(path));
    const inPage = await page.evaluate(
      async ({ path, token, key, policy }) => {
        const response = await fetch(path, {
          method: "POST",
          headers: {
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
            "x-router-provider-openai-api-key": key,
          },
          body: JSON.stringify({ input: { text: "hello" }, policy }),
        });
        const body = await response.json();
        // The entry is filed once the body is read.
        const entry = performance.getEntriesByName(
          new URL(path, location.href).href,
        )
          .at(-1) as ResourceEntry | undefined;
        return {
          status: response.status,
          outcome: body.status as string,
          timings: (entry?.serverTiming ?? []).map((t) => ({
            name: t.name,
            ms: t.duration,
          })),
        };
      },
      { path, token: alice.token, key: KEY, policy: POLICY },
    );
    assert.equal(inPage.status, 200);
    assert.equal(inPage.outcome, "completed");
    const names = inPage.timings.map((t) => t.name);
    for (
      const phase of [...TURN_PHASES, "provider_connect", "provider_first_byte"]
    ) {
      assert.ok(names.includes(phase), `${phase} in ${names}`);
    }
    for (const t of inPage.timings) assert.ok(t.ms >= 0, `${t.name} ${t.ms}`);
    const header = (await (await answered).allHeaders())["server-timing"];
    assert.deepEqual(
      header.split(", ").map((entry) => entry.split(";")[0]),
      names,
      "the network layer saw the header the Performance API parsed",
    );
  });
});
