/**
 * Debian's Chromium (`apt-get install -y chromium`), driven by playwright-core: never a browser
 * download. Headless, without the sandbox (CI runs as root) or a GPU, and without Chromium's own
 * background traffic, so a test sees every request its page makes.
 */
import { access } from "node:fs/promises";
import process from "node:process";
import { type Browser, chromium } from "playwright-core";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export async function launchChromium(): Promise<Browser> {
  try {
    await access(CHROMIUM_PATH);
  } catch {
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}: install it with \`apt-get install -y chromium\``,
    );
  }
  return await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
}
