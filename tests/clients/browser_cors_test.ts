/**
 * A web page on another origin uses @switchyard/client in headless Chromium:
 * through CORS (`router.http.cors_origins`) it signs up, runs an encrypted,
 * streamed turn with a tool call (Web Crypto in the page), and reads an error
 * envelope; the same page served from an origin the service does not list is
 * refused by the browser.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { createTestApp, type TestApp } from "../support/app.ts";
import { launchChromium } from "../support/browser.ts";
import { type FakeProvider, startFakeProvider } from "../support/fake_provider.ts";
import { openAiStream, openAiToolCallStream } from "../support/engine_app.ts";
import { type Served, serveHandler } from "../support/serve_handler.ts";

const CLIENT = fileURLToPath(new URL("../../clients/typescript/src/index.ts", import.meta.url));

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>switchyard in a browser</title>
<script type="module">
  import { createClient, createSessionKey, SwitchyardError } from "/client.js";
  window.encryptedRun = async (api) => {
    const client = createClient({ baseUrl: api, providerKeys: { openai: "sk-test-openai" } });
    await client.auth.bootstrap();
    await client.auth.signIn();
    const key = await createSessionKey({ extractable: false });
    const { id } = await client.sessions.create({ title: "from the browser" }, { key });
    const session = client.session(id, { key });
    let deltas = 0;
    const calls = [];
    const result = await session.run("PAGE_PROMPT_11 read it", {
      policy: {
        routing: { default: { model: "openai/gpt-4o-mini" } },
        tools: { permissions: { file_read: "allow" } },
        privacy: { remote: { mode: "allow" } },
      },
      onToolCall: (call) => (calls.push(call.name), "PAGE_RESULT_22"),
      onEvent: (event) => { if (event.type === "text_delta") deltas++; },
    });
    const messages = (await session.messages()).map((m) => m.text);
    let error;
    try {
      await client.session("not-a-uuid").get();
    } catch (e) {
      error = { isClientError: e instanceof SwitchyardError, code: e.code, status: e.status };
    }
    return { status: result.status, text: result.message.content, deltas, calls, messages, error };
  };
  window.statusOf = async (api) => {
    try {
      return await createClient({ baseUrl: api }).status();
    } catch (e) {
      return { code: e.code };
    }
  };
  document.title = "ready";
</script>`;

let openai: FakeProvider;
let app: TestApp;
let served: Served;
let site: Server;
/** The listed origin, and the same site under an origin the service does not list. */
let siteOrigin: string;
let otherOrigin: string;
let bundleDir: string;
let browser: Browser;
let page: Page;
let otherPage: Page;

/** The client bundled for browsers, dependencies included, as a page would load it. */
async function bundleClient(): Promise<string> {
  bundleDir = await mkdtemp(join(tmpdir(), "switchyard-browser-"));
  const out = join(bundleDir, "client.js");
  const args = ["build", CLIENT, "--target", "browser", "--format", "esm", "--outfile", out];
  const onBun = process.versions.bun !== undefined;
  const built = onBun
    ? spawnSync(process.execPath, args, { encoding: "utf8" })
    : spawnSync("npx", ["-y", "bun@1", ...args], { encoding: "utf8" });
  assert.equal(built.status, 0, `${built.stdout}${built.stderr}`);
  return await readFile(out, "utf8");
}

async function startSite(bundle: string): Promise<void> {
  site = createServer((req, res) => {
    if (req.url === "/client.js") {
      res.writeHead(200, { "content-type": "text/javascript; charset=utf-8" }).end(bundle);
    } else {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
    }
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  // "localhost" and "127.0.0.1" name different origins, and neither is the service's.
  const port = (site.address() as AddressInfo).port;
  siteOrigin = `http://localhost:${port}`;
  otherOrigin = `http://127.0.0.1:${port}`;
}

before(async () => {
  await startSite(await bundleClient());
  openai = await startFakeProvider();
  const providers = { openai: { base_url: `${openai.url}/v1`, models: ["gpt-4o-mini"] } };
  app = await createTestApp({
    providers,
    configure: (c) => void (c.http.corsOrigins = [siteOrigin]),
  });
  served = await serveHandler(app.handler);
  browser = await launchChromium();
  [page, otherPage] = [await browser.newPage(), await browser.newPage()];
  for (const [p, origin] of [[page, siteOrigin], [otherPage, otherOrigin]] as const) {
    await p.goto(origin);
    await p.waitForFunction("document.title === 'ready'");
  }
});
after(async () => {
  await browser?.close();
  await served.close();
  await app.close();
  await openai.close();
  await new Promise((resolve) => site.close(resolve));
  await rm(bundleDir, { recursive: true, force: true });
});

/** Calls a function the page defined, in the page. */
const callPage = (name: string, api: string, on = page) =>
  on.evaluate(
    ({ name, api }) =>
      (globalThis as unknown as Record<string, (api: string) => Promise<unknown>>)[name](api),
    { name, api },
  );

describe("the client in a browser on another origin", () => {
  test("runs an encrypted streamed turn with a tool call through CORS and reads error envelopes", async () => {
    openai.enqueue(openAiToolCallStream("read_file", { path: "a.txt" }));
    openai.enqueue(openAiStream(["PAGE_", "ANSWER_33"]));
    const outcome = await callPage("encryptedRun", served.url);
    assert.deepEqual(outcome, {
      status: "completed",
      text: "PAGE_ANSWER_33",
      deltas: 2,
      calls: ["read_file"],
      messages: ["PAGE_PROMPT_11 read it", "PAGE_ANSWER_33"],
      error: { isClientError: true, code: "invalid_session_id", status: 400 },
    });
    const sent = openai.requests.map((r) => r.body).join("\n");
    assert.ok(sent.includes("PAGE_PROMPT_11") && sent.includes("PAGE_RESULT_22"));
  });

  test("a page from an origin the service does not list is refused by the browser", async () => {
    const outcome = await callPage("statusOf", served.url, otherPage);
    assert.deepEqual(outcome, { code: "network_error" });
    const allowed = await callPage("statusOf", served.url);
    assert.deepEqual(allowed, { status: "ok", version: "0.1.0-alpha.1" });
  });
});
