/**
 * The Chromium that the npm package `@sparticuz/chromium` ships inside its tarball (a brotli-packed
 * headless shell, the NSS libraries it links and a font), unpacked once per package version into
 * the temporary directory. Nothing is downloaded: the package carries the binary, and the
 * package's own unpacker is not used because it writes straight into the shared temporary
 * directory, where two test files starting together would see each other's half-written binary.
 */
import { createReadStream, createWriteStream } from "node:fs";
import { access, chmod, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { brotliDecompress, createBrotliDecompress } from "node:zlib";
import { extractTar } from "./tar.ts";

export const NPM_CHROMIUM_PACKAGE = "@sparticuz/chromium";

export interface NpmChromium {
  version: string;
  executablePath: string;
  /** The environment the binary needs: its NSS libraries, fonts and a locale Intl accepts. */
  env: Record<string, string>;
}

/** The package's directory, or undefined when it is not installed. */
export function npmChromiumPackageDir(): string | undefined {
  try {
    // Resolves to <package>/build/index.js.
    return fileURLToPath(new URL("..", import.meta.resolve(NPM_CHROMIUM_PACKAGE)));
  } catch {
    return undefined;
  }
}

export async function unpackNpmChromium(packageDir: string): Promise<NpmChromium> {
  const manifest = JSON.parse(await readFile(join(packageDir, "package.json"), "utf8"));
  const version = String(manifest.version);
  const dir = join(tmpdir(), `switchyard-chromium-${version}`);
  const executablePath = join(dir, "chromium");
  if (!(await exists(executablePath))) await unpackInto(join(packageDir, "bin"), dir);
  const libraries = join(dir, "lib");
  const inherited = process.env.LD_LIBRARY_PATH;
  return {
    version,
    executablePath,
    env: {
      LD_LIBRARY_PATH: inherited ? `${libraries}:${inherited}` : libraries,
      FONTCONFIG_FILE: join(dir, "fonts.conf"),
      // Under the C or POSIX locale (LANG=C.UTF-8 in most containers) this build reports
      // navigator.language "en-US@posix", which Intl rejects; Debian's reports "en-US".
      LC_ALL: "en_US.UTF-8",
    },
  };
}

/**
 * Unpacks beside `dir` and renames into place, so `dir` exists only complete; the loser of a
 * race between two processes drops its copy.
 */
async function unpackInto(bin: string, dir: string): Promise<void> {
  const staging = await mkdtemp(`${dir}.partial-`);
  try {
    await chmod(staging, 0o755); // mkdtemp's 0700 would shut out other users of the machine
    await pipeline(
      createReadStream(join(bin, "chromium.br")),
      createBrotliDecompress(),
      createWriteStream(join(staging, "chromium"), { mode: 0o755 }),
    );
    const inflate = promisify(brotliDecompress);
    // lib/: libnss3, libnspr4 and libexpat, which a machine without a browser may lack.
    await extractTar(await inflate(await readFile(join(bin, "al2023.tar.br"))), staging);
    // fonts/: Open Sans, for a machine without fonts; the archive's fonts.conf is replaced.
    await extractTar(await inflate(await readFile(join(bin, "fonts.tar.br"))), staging);
    await writeFile(join(staging, "fonts.conf"), fontConfig(dir));
    await rename(staging, dir);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    if (await exists(join(dir, "chromium"))) return;
    throw error;
  }
}

/** The system's fonts where it has a configuration, and the package's font in any case. */
function fontConfig(dir: string): string {
  return [
    `<?xml version="1.0"?>`,
    `<!DOCTYPE fontconfig SYSTEM "fonts.dtd">`,
    `<fontconfig>`,
    `  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>`,
    `  <dir>${join(dir, "fonts")}</dir>`,
    `  <cachedir>${join(dir, "fonts-cache")}</cachedir>`,
    `</fontconfig>`,
    ``,
  ].join("\n");
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
