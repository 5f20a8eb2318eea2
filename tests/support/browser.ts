/**
 * Chromium for the browser tests, driven by playwright-core: never a browser download. The first
 * of these is used: the binary that `CHROMIUM_PATH` names; Debian's (`apt-get install -y
 * chromium`) at /usr/bin/chromium; the one the npm package `@sparticuz/chromium` (in
 * tests/package.json) ships. Headless, without the sandbox (CI runs as root) or a GPU, and without
 * Chromium's own background traffic, so a test sees every request its page makes.
 */
import { access, constants } from "node:fs/promises";
import process from "node:process";
import { type Browser, chromium } from "playwright-core";
import { NPM_CHROMIUM_PACKAGE, npmChromiumPackageDir, unpackNpmChromium } from "./npm_chromium.ts";

export const DEBIAN_CHROMIUM = "/usr/bin/chromium";

export interface ChosenChromium {
  /** Where it came from, for messages: `CHROMIUM_PATH`, Debian or the npm package. */
  source: string;
  executablePath: string;
  env?: Record<string, string>;
}

export async function chooseChromium(
  env: Record<string, string | undefined> = process.env,
  debianPath = DEBIAN_CHROMIUM,
): Promise<ChosenChromium> {
  const configured = env.CHROMIUM_PATH;
  if (configured) {
    if (await isExecutable(configured)) {
      return { source: "CHROMIUM_PATH", executablePath: configured };
    }
    throw new Error(`Chromium not found: CHROMIUM_PATH names "${configured}", not an executable`);
  }
  if (await isExecutable(debianPath)) {
    return { source: "Debian's chromium", executablePath: debianPath };
  }
  const packageDir = npmChromiumPackageDir();
  if (!packageDir) {
    throw new Error(
      `Chromium not found: CHROMIUM_PATH is unset, ${debianPath} is absent and the npm ` +
        `package "${NPM_CHROMIUM_PACKAGE}" is not installed (run \`deno task deps\`)`,
    );
  }
  return { source: `npm package ${NPM_CHROMIUM_PACKAGE}`, ...await unpackNpmChromium(packageDir) };
}

/** Launches the given Chromium, or the first one found. */
export async function launchChromium(given?: ChosenChromium): Promise<Browser> {
  const chosen = given ?? await chooseChromium();
  try {
    return await chromium.launch({
      executablePath: chosen.executablePath,
      env: chosen.env ? { ...process.env, ...chosen.env } : undefined,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `Chromium did not start: ${chosen.source} at "${chosen.executablePath}": ${reason}`,
    );
  }
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
