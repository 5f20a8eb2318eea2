/**
 * Which Chromium the browser tests get, and the npm package's Chromium working on this machine
 * even where Debian's is installed and chosen first, so the fallback cannot rot unseen.
 */
import assert from "node:assert/strict";
import { access, constants } from "node:fs/promises";
import { tmpdir } from "node:os";
import process from "node:process";
import { describe, test } from "node:test";
import { chooseChromium, launchChromium } from "./browser.ts";
import { npmChromiumPackageDir, unpackNpmChromium } from "./npm_chromium.ts";

const ABSENT = "/nonexistent/switchyard/chromium";

describe("the browser tests' Chromium", () => {
  test("CHROMIUM_PATH comes first, and one that is not an executable is an error naming it", async () => {
    const chosen = await chooseChromium({ CHROMIUM_PATH: process.execPath }, process.execPath);
    assert.deepEqual(chosen, { source: "CHROMIUM_PATH", executablePath: process.execPath });
    await assert.rejects(
      chooseChromium({ CHROMIUM_PATH: ABSENT }, process.execPath),
      new Error(`Chromium not found: CHROMIUM_PATH names "${ABSENT}", not an executable`),
    );
  });

  test("Debian's comes next, and the npm package's when Debian's is absent", async () => {
    const debian = await chooseChromium({}, process.execPath);
    assert.deepEqual(debian, { source: "Debian's chromium", executablePath: process.execPath });
    const npm = await chooseChromium({}, ABSENT);
    assert.equal(npm.source, "npm package @sparticuz/chromium");
    assert.ok(npm.executablePath.startsWith(tmpdir()), npm.executablePath);
    await access(npm.executablePath, constants.X_OK);
  });

  test("the npm package's Chromium renders a page, runs its script and formats numbers", async () => {
    const packageDir = npmChromiumPackageDir();
    assert.ok(packageDir, "@sparticuz/chromium is installed (tests/package.json)");
    const unpacked = await unpackNpmChromium(packageDir);
    const browser = await launchChromium({ source: "npm package", ...unpacked });
    try {
      assert.equal(browser.version().split(".")[0], unpacked.version.split(".")[0]);
      const page = await browser.newPage();
      await page.setContent(
        `<canvas id="c" width="4" height="4"></canvas><script>
          const c = document.getElementById("c").getContext("2d");
          c.fillStyle = "rgb(255, 0, 0)";
          c.fillRect(0, 0, 4, 4);
          document.title = Array.from(c.getImageData(1, 1, 1, 1).data).join(",");
        </script>`,
      );
      assert.equal(await page.title(), "255,0,0,255");
      // A locale Intl accepts, whatever the machine's (the console formats numbers with it).
      const formatted = await page.evaluate(
        "new Intl.NumberFormat(navigator.language).format(1234.5)",
      );
      assert.equal(formatted, "1,234.5");
    } finally {
      await browser.close();
    }
  });
});
