/**
 * The web console (`/console`) and the API reference (`/docs`): static files, no authentication
 * (the pages sign in through the public API themselves). A page is revalidated on every load;
 * the hashed files it names are cached for good.
 */
import { ServiceError } from "../../core/errors.ts";
import type { Endpoint, RequestContext } from "../context.ts";
import { gzipped } from "../web_assets.ts";

// The pages load only their own files and talk only to this origin: no CDN, no font service.
const PAGE_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

async function serveAsset(ctx: RequestContext, name: string): Promise<Response> {
  const assets = ctx.deps.webAssets;
  const asset = assets?.get(name);
  if (!asset) {
    const hint = assets ? "" : ": the web console is not built (run `deno task console:build`)";
    throw ServiceError.of("not_found", `no such file: ${ctx.url.pathname}${hint}`);
  }
  const headers = new Headers({
    "content-type": asset.contentType,
    "cache-control": asset.immutable ? "public, max-age=31536000, immutable" : "no-cache",
    etag: asset.etag,
    vary: "accept-encoding",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
  });
  if (asset.contentType.startsWith("text/html")) {
    headers.set("content-security-policy", PAGE_POLICY);
  }
  if (ctx.request.headers.get("if-none-match") === asset.etag) {
    return new Response(null, { status: 304, headers });
  }
  if (/\bgzip\b/.test(ctx.request.headers.get("accept-encoding") ?? "")) {
    headers.set("content-encoding", "gzip");
    return new Response(await gzipped(asset) as BodyInit, { headers });
  }
  return new Response(await asset.read() as BodyInit, { headers });
}

/** `GET /<app>`: the app's page. */
export function webPage(app: "console" | "docs"): Endpoint {
  return { auth: "none", handle: (ctx) => serveAsset(ctx, `${app}/index.html`) };
}

/** `GET /<app>/:file`: one of the app's files. */
export function webFile(app: "console" | "docs"): Endpoint {
  return { auth: "none", handle: (ctx) => serveAsset(ctx, `${app}/${ctx.params.file}`) };
}
