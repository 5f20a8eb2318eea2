/**
 * The user documentation stands on its own: a clone holds everything it
 * points to. No page, and no description of the OpenAPI document the service
 * serves at /docs, cites a file outside the repository (the design notes kept
 * beside it are not part of the product), and every relative link of a page
 * resolves to a file of the repository.
 */
import assert from "node:assert/strict";
import { access, readdir, readFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

async function pages(): Promise<string[]> {
  const docs = (await readdir(join(ROOT, "docs"))).filter((f) => f.endsWith(".md"));
  return ["README.md", "clients/typescript/README.md", ...docs.map((f) => `docs/${f}`)];
}

/** Where a page points outside the product: the spec files and anything above the repository. */
const OUTSIDE = /\.\.\/shared\/|\b(?:decisions|interface)\.md\b/;

/** `[text](target)` links, without anchors; absolute URLs and pure anchors left out. */
function relativeLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1].split("#")[0])
    .filter((target) => target !== "" && !/^[a-z]+:/i.test(target));
}

describe("the user documentation", () => {
  test("cites nothing outside the repository", async () => {
    for (const page of await pages()) {
      const text = await readFile(join(ROOT, page), "utf8");
      const line = text.split("\n").findIndex((l) => OUTSIDE.test(l));
      assert.equal(line, -1, `${page}:${line + 1} points outside the repository`);
    }
  });

  test("the OpenAPI document's descriptions cite nothing outside the repository", async () => {
    const text = await readFile(join(ROOT, "src/http/openapi.json"), "utf8");
    const line = text.split("\n").findIndex((l) => OUTSIDE.test(l));
    assert.equal(line, -1, `src/http/openapi.json:${line + 1} points outside the repository`);
  });

  test("links only to files the repository holds", async () => {
    for (const page of await pages()) {
      const text = await readFile(join(ROOT, page), "utf8");
      for (const target of relativeLinks(text)) {
        const file = join(ROOT, dirname(page), decodeURI(target));
        await access(file).catch(() => {
          assert.fail(`${page} links to ${target}, which is not ${relative(ROOT, file)}`);
        });
      }
    }
  });
});
