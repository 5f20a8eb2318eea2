/**
 * Makes the embedded store's template data directory (pglite_template.ts) from
 * the installed PGlite: `deno task pglite:datadir`. Never edit its output by
 * hand; run this again after every PGlite upgrade (a test fails until then).
 *
 * The directory is the one PGlite's own initdb makes on a first start: PGlite
 * runs initdb in a second, throwaway instance and copies its result over with
 * `dumpDataDir()`. This opens PGlite on an empty directory as a first start
 * does and keeps that copy, so the template is what initdb made, file for
 * file, before any start of the store touched it.
 */
import { PGlite } from "@electric-sql/pglite";
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliCompressSync, constants } from "node:zlib";
import {
  tarEntries,
  TEMPLATE_FILE,
  TEMPLATE_MANIFEST,
  type TemplateManifest,
} from "./pglite_template.ts";

/** The installed PGlite's version, from its package.json (its exports do not list that file). */
export async function installedPgliteVersion(): Promise<string> {
  const file = new URL("../../node_modules/@electric-sql/pglite/package.json", import.meta.url);
  return (JSON.parse(await readFile(file, "utf8")) as { version: string }).version;
}

/**
 * The data directory PGlite's initdb makes, as the uncompressed tarball PGlite
 * copies it with, and the instance opened on it with `startParams` (the caller
 * closes it and removes `dir`).
 */
export async function initdbDataDir(
  startParams?: string[],
): Promise<{ tar: Uint8Array; pg: PGlite; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), "switchyard-initdb-"));
  const dumps: Blob[] = [];
  const dumpDataDir = PGlite.prototype.dumpDataDir;
  // Only initdb's instance dumps during create(): the one opened here never does.
  PGlite.prototype.dumpDataDir = async function (this: PGlite, compression) {
    const dump = await dumpDataDir.call(this, compression);
    dumps.push(dump);
    return dump;
  };
  let pg: PGlite;
  try {
    pg = await PGlite.create({ dataDir: dir, ...(startParams ? { startParams } : {}) });
  } finally {
    PGlite.prototype.dumpDataDir = dumpDataDir;
  }
  if (dumps.length !== 1) {
    await pg.close();
    await rm(dir, { recursive: true, force: true });
    throw new Error(
      `PGlite's first start did not copy initdb's directory once: ${dumps.length} copies ` +
        `(this PGlite makes a new directory differently; see pglite_template_make.ts)`,
    );
  }
  return { tar: new Uint8Array(await dumps[0].arrayBuffer()), pg, dir };
}

/**
 * Brotli with a 16 MB window: the template has three near-identical databases
 * (template0, template1, postgres), which gzip's 32 KB window cannot see
 * repeat. 1.3 MB against gzip's 4.5 MB.
 */
export function compressTemplate(tar: Uint8Array): Uint8Array {
  return brotliCompressSync(tar, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 11,
      [constants.BROTLI_PARAM_LGWIN]: 24,
      [constants.BROTLI_PARAM_SIZE_HINT]: tar.length,
    },
  });
}

/** The names at the top of a data directory's tarball. */
export function topLevel(tar: Uint8Array): string[] {
  return [...new Set([...tarEntries(tar)].map((e) => e.name.split("/")[0]))].sort();
}

export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

async function main() {
  const { tar, pg, dir } = await initdbDataDir();
  const postgres = (await pg.query<{ v: string }>("SELECT current_setting('server_version') AS v"))
    .rows[0].v;
  await pg.close();
  await rm(dir, { recursive: true, force: true });
  const compressed = compressTemplate(tar);
  const manifest: TemplateManifest = {
    pglite: await installedPgliteVersion(),
    postgres,
    tarBytes: tar.length,
    sha256: sha256(compressed),
    topLevel: topLevel(tar),
  };
  await writeFile(TEMPLATE_FILE, compressed);
  await writeFile(TEMPLATE_MANIFEST, JSON.stringify(manifest, null, 2) + "\n");
  console.log(
    `wrote ${TEMPLATE_FILE.pathname} (${compressed.length} bytes, ${tar.length} as a tarball) ` +
      `for PGlite ${manifest.pglite} (PostgreSQL ${postgres})`,
  );
}

if (import.meta.main) await main();
