/**
 * The web console's and the API reference's built files (`deno task console:build` writes them
 * to `web/`), served outside `/api/v1`. Only their names, types and ETags stay in memory:
 * the bytes are read when asked for (the API reference alone is megabytes an instance that never
 * serves it should not hold). Names are `<app>/<file>`, e.g.
 * `console/index.html`; every file but an app's `index.html` carries a content hash in its name,
 * so it can be cached for good while the page that names it is revalidated on every load.
 */
import { readdir, readFile } from "node:fs/promises";

/** Reads a file's bytes: from `web/`, or from the single-file binary. */
export type ReadFile = () => Promise<Uint8Array>;

export interface WebAsset {
  read: ReadFile;
  contentType: string;
  etag: string;
  /** The name carries a content hash: the bytes behind it never change. */
  immutable: boolean;
  /** gzip of `body`, made on first demand. */
  gzipped?: Promise<Uint8Array>;
}

export type WebAssets = ReadonlyMap<string, WebAsset>;

const CONTENT_TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  json: "application/json",
  svg: "image/svg+xml",
  png: "image/png",
  woff2: "font/woff2",
};

export function contentTypeOf(name: string): string {
  const ext = name.slice(name.lastIndexOf(".") + 1).toLowerCase();
  return CONTENT_TYPES[ext] ?? "application/octet-stream";
}

async function etagOf(body: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", body as BufferSource));
  const hex = Array.from(digest.slice(0, 12), (b) => b.toString(16).padStart(2, "0")).join("");
  return `"${hex}"`;
}

/** The asset table of files given by name; each is read once here, for its ETag. */
export async function webAssets(files: Record<string, ReadFile>): Promise<WebAssets> {
  const table = new Map<string, WebAsset>();
  for (const [name, read] of Object.entries(files)) {
    table.set(name, {
      read,
      contentType: contentTypeOf(name),
      etag: await etagOf(await read()),
      immutable: !name.endsWith("/index.html"),
    });
  }
  return table;
}

/** The build output in `dir` (one folder per app), or null when it has not been built. */
export async function readWebAssets(dir: URL): Promise<WebAssets | null> {
  const files: Record<string, ReadFile> = {};
  for (const app of ["console", "docs"]) {
    let names: string[];
    try {
      names = await readdir(new URL(`${app}/`, dir));
    } catch {
      return null;
    }
    for (const name of names) {
      const path = new URL(`${app}/${name}`, dir);
      files[`${app}/${name}`] = async () => new Uint8Array(await readFile(path));
    }
  }
  return await webAssets(files);
}

/** The gzip of an asset, compressed once and kept. */
export function gzipped(asset: WebAsset): Promise<Uint8Array> {
  asset.gzipped ??= asset.read().then((body) =>
    new Response(
      new Blob([body as BlobPart]).stream().pipeThrough(new CompressionStream("gzip")),
    ).bytes()
  );
  return asset.gzipped;
}
