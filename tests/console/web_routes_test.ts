/**
 * `/console` and `/docs` through the handler: pages revalidated, hashed files cached for good,
 * content types, ETag revalidation, gzip on request, a page policy that keeps the page on its own
 * origin, no authentication, and a clear 404 when the console was not built.
 */
import assert from "node:assert/strict";
import { gunzipSync } from "node:zlib";
import { after, before, describe, test } from "node:test";
import { webAssets } from "../../src/http/web_assets.ts";
import { createTestApp, type TestApp } from "../support/app.ts";

const encode = (text: string) => new TextEncoder().encode(text);
/** A file as the asset table reads it. */
const bytes = (text: string) => () => Promise.resolve(encode(text));

async function get(app: TestApp, path: string, headers: Record<string, string> = {}) {
  return await app.handler(new Request(`http://127.0.0.1${path}`, { headers }));
}

describe("web console routes", () => {
  let app: TestApp;
  let bare: TestApp;
  const script = "console.log('console');".repeat(50);

  before(async () => {
    app = await createTestApp({
      webAssets: await webAssets({
        "console/index.html": bytes("<!doctype html><title>console</title>"),
        "console/app-ABC123.js": bytes(script),
        "console/app-DEF456.css": bytes("body{margin:0}"),
        "docs/index.html": bytes("<!doctype html><title>docs</title>"),
        "docs/swagger-ui-0123.js": bytes("window.SwaggerUIBundle=()=>{}"),
      }),
    });
    bare = await createTestApp();
  });
  after(async () => {
    await app.close();
    await bare.close();
  });

  test("the console page is HTML, revalidated on every load, and confined to its origin", async () => {
    for (const path of ["/console", "/console/"]) {
      const r = await get(app, path);
      assert.equal(r.status, 200);
      assert.equal(r.headers.get("content-type"), "text/html; charset=utf-8");
      assert.equal(r.headers.get("cache-control"), "no-cache");
      assert.match(r.headers.get("content-security-policy") ?? "", /default-src 'self'/);
      assert.match(r.headers.get("content-security-policy") ?? "", /connect-src 'self'/);
      assert.equal(r.headers.get("x-content-type-options"), "nosniff");
      assert.equal(await r.text(), "<!doctype html><title>console</title>");
    }
  });

  test("hashed files are cached for good with their own content types", async () => {
    const js = await get(app, "/console/app-ABC123.js");
    assert.equal(js.status, 200);
    assert.equal(js.headers.get("content-type"), "text/javascript; charset=utf-8");
    assert.equal(js.headers.get("cache-control"), "public, max-age=31536000, immutable");
    assert.equal(await js.text(), script);
    const css = await get(app, "/console/app-DEF456.css");
    assert.equal(css.headers.get("content-type"), "text/css; charset=utf-8");
    const docs = await get(app, "/docs/swagger-ui-0123.js");
    assert.equal(docs.status, 200);
    assert.equal((await get(app, "/docs")).headers.get("content-type"), "text/html; charset=utf-8");
  });

  test("a matching ETag answers 304 without a body", async () => {
    const first = await get(app, "/console/app-ABC123.js");
    const etag = first.headers.get("etag")!;
    assert.match(etag, /^"[0-9a-f]{24}"$/);
    const again = await get(app, "/console/app-ABC123.js", { "if-none-match": etag });
    assert.equal(again.status, 304);
    assert.equal(await again.text(), "");
    const other = await get(app, "/console/app-ABC123.js", { "if-none-match": '"other"' });
    assert.equal(other.status, 200);
  });

  test("a client that accepts gzip gets the same bytes compressed", async () => {
    const r = await get(app, "/console/app-ABC123.js", { "accept-encoding": "gzip, br" });
    assert.equal(r.headers.get("content-encoding"), "gzip");
    assert.equal(r.headers.get("vary"), "accept-encoding");
    const body = new Uint8Array(await r.arrayBuffer());
    assert.ok(body.length < script.length);
    assert.equal(new TextDecoder().decode(gunzipSync(body)), script);
  });

  test("an unknown file is 404 not_found in the error envelope; other methods are 405", async () => {
    const r = await get(app, "/console/nope.js");
    assert.equal(r.status, 404);
    assert.equal((await r.json()).error.code, "not_found");
    const nested = await get(app, "/console/a/b.js");
    assert.equal(nested.status, 404);
    const post = await app.handler(new Request("http://127.0.0.1/console", { method: "POST" }));
    assert.equal(post.status, 405);
    assert.equal(post.headers.get("allow"), "GET");
  });

  test("without a build the pages answer 404 saying how to build them", async () => {
    const r = await get(bare, "/console");
    assert.equal(r.status, 404);
    const body = await r.json();
    assert.equal(body.error.code, "not_found");
    assert.match(body.error.message, /deno task console:build/);
  });
});
