/**
 * A new embedded store starts from a template data directory rather than by
 * running initdb. PGlite runs initdb in a second instance beside the first,
 * with hundreds of MB of WASM memory of its own: a first start peaked at
 * 690 MB against 240 MB for a restart. The template is what that initdb made,
 * kept by `deno task pglite:datadir` (pglite_template_make.ts) from the pinned
 * PGlite, and tests/store/pglite_template_test.ts proves it matches a fresh
 * initdb and was made by the installed PGlite.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { brotliDecompressSync } from "node:zlib";

/** The template: a tarball of the data directory, compressed with Brotli. */
export const TEMPLATE_FILE = new URL("./pglite_template/datadir.tar.br", import.meta.url);
/** Which PGlite made it, and what it holds. */
export const TEMPLATE_MANIFEST = new URL("./pglite_template/manifest.json", import.meta.url);

export interface TemplateManifest {
  pglite: string;
  postgres: string;
  tarBytes: number;
  sha256: string;
  /** The names at the directory's top, which a directory cut short while written holds. */
  topLevel: string[];
}

/**
 * Whether PGlite at `path` would make a new data directory: `memory://`, or a
 * directory without `PG_VERSION` (PGlite's own test).
 */
export function isNewStore(path: string): boolean {
  return path === "memory://" || !existsSync(join(path, "PG_VERSION"));
}

/**
 * The template as an uncompressed tarball. `compressed` is the template file
 * where it cannot be read beside this module (a single-file build embeds it).
 */
export async function templateTar(compressed?: Blob): Promise<Uint8Array> {
  const bytes = compressed === undefined
    ? await readFile(TEMPLATE_FILE)
    : new Uint8Array(await compressed.arrayBuffer());
  return brotliDecompressSync(bytes);
}

/** A tarball's entries, as PGlite's dumpDataDir writes them (ustar: files and directories). */
export function* tarEntries(
  tar: Uint8Array,
): Generator<{ name: string; directory: boolean; data: Uint8Array }> {
  const text = (from: number, length: number) => {
    const field = tar.subarray(from, from + length);
    const end = field.indexOf(0);
    return new TextDecoder().decode(end === -1 ? field : field.subarray(0, end));
  };
  for (let at = 0; at + 512 <= tar.length && tar[at] !== 0;) {
    const size = parseInt(text(at + 124, 12).trim() || "0", 8);
    const prefix = text(at + 345, 155);
    const name = (prefix === "" ? "" : prefix + "/") + text(at, 100);
    const type = String.fromCharCode(tar[at + 156]);
    if (type !== "0" && type !== "\0" && type !== "5") {
      throw new Error(`template entry ${JSON.stringify(name)}: unexpected type ${type}`);
    }
    const data = tar.subarray(at + 512, at + 512 + size);
    yield { name: name.replace(/^\/+/, ""), directory: type === "5", data };
    at += 512 + Math.ceil(size / 512) * 512;
  }
}

/**
 * Writes the template into the directory `path`. `PG_VERSION`, PGlite's sign
 * of a data directory, is written last: a write cut short (a crash, a full
 * disk) leaves a directory that is still new, and the next start writes it
 * again over whatever of the template it holds.
 */
export function writeTemplate(path: string, tar: Uint8Array): void {
  let version: Uint8Array | undefined;
  mkdirSync(path, { recursive: true, mode: 0o700 });
  for (const entry of tarEntries(tar)) {
    const target = join(path, entry.name);
    if (entry.directory) {
      mkdirSync(target, { recursive: true, mode: 0o700 });
    } else if (entry.name === "PG_VERSION") {
      version = entry.data;
    } else {
      mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
      writeFileSync(target, entry.data, { mode: 0o600 });
    }
  }
  if (version === undefined) throw new Error("the template has no PG_VERSION");
  writeFileSync(join(path, "PG_VERSION"), version, { mode: 0o600 });
}

/**
 * What `PGlite.create` needs for a store at `path` to start from the template
 * when it is new. A directory gets the template written into it here, file by
 * file, rather than held by PGlite's `loadDataDir` in three copies at once
 * (300 MB at the peak of a first start against 400 MB); `memory://` has
 * nowhere else to put it.
 */
export async function fromTemplate(
  path: string,
  compressed?: Blob,
): Promise<{ loadDataDir?: Blob }> {
  if (!isNewStore(path)) return {};
  const tar = await templateTar(compressed);
  if (path !== "memory://") {
    writeTemplate(path, tar);
    return {};
  }
  return { loadDataDir: new Blob([tar as Uint8Array<ArrayBuffer>], { type: "application/x-tar" }) };
}
