/**
 * Debian's Chromium (`apt-get install -y chromium`; never a downloaded
 * browser) driven by playwright-core, headless, for the browser tests.
 */
import { type Browser, chromium } from "playwright-core";

export const CHROMIUM_PATH = "/usr/bin/chromium";

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
}
