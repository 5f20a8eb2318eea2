/**
 * `src/core/` is pure (STYLE.md habit 2): no I/O, no clock, no randomness, no
 * imports from the I/O layers or `node:*`. This test makes the rule fail CI.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const CORE = fileURLToPath(new URL("../../src/core/", import.meta.url));

const FORBIDDEN: [string, RegExp][] = [
  ["a node: import", /from\s+["']node:|import\(\s*["']node:/],
  ["an import from http/", /from\s+["'][^"']*\.\.\/http\//],
  ["an import from store/", /from\s+["'][^"']*\.\.\/store\//],
  ["an import from providers/", /from\s+["'][^"']*\.\.\/providers\//],
  ["an import from engine/", /from\s+["'][^"']*\.\.\/engine\//],
  ["Date.now", /\bDate\.now\b/],
  // A date made from values is pure; one made from nothing reads the clock.
  ["new Date()", /\bnew\s+Date\s*\(\s*\)/],
  ["Math.random", /\bMath\.random\b/],
  ["crypto.", /\bcrypto\./],
  ["fetch(", /\bfetch\s*\(/],
  ["Deno", /\bDeno\b/],
  ["Bun", /\bBun\b/],
];

function coreFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}${dir.endsWith("/") ? "" : "/"}${entry.name}`;
    if (entry.isDirectory()) return coreFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

export function violations(source: string): string[] {
  return FORBIDDEN.filter(([, pattern]) => pattern.test(source)).map(([name]) => name);
}

describe("core purity", () => {
  test("the scan catches each forbidden use", () => {
    const samples: [string, string][] = [
      ['import { readFile } from "node:fs";', "a node: import"],
      ['import { x } from "../http/handler.ts";', "an import from http/"],
      ['import { q } from "../store/query.ts";', "an import from store/"],
      ['import { p } from "../providers/openai.ts";', "an import from providers/"],
      ['import { e } from "../engine/run.ts";', "an import from engine/"],
      ["const t = Date.now();", "Date.now"],
      ["const d = new Date();", "new Date()"],
      ["const r = Math.random();", "Math.random"],
      ["const id = crypto.randomUUID();", "crypto."],
      ["await fetch(url);", "fetch("],
      ["Deno.env.get('X')", "Deno"],
      ["Bun.serve({})", "Bun"],
    ];
    for (const [source, name] of samples) assert.deepEqual(violations(source), [name], source);
    assert.deepEqual(violations('import picomatch from "picomatch";'), []);
    assert.deepEqual(violations("const d = new Date(Date.UTC(2026, 0, 1));"), []);
  });

  test("src/core has files to scan", () => {
    assert.ok(coreFiles(CORE).length > 10);
  });

  for (const file of coreFiles(CORE)) {
    const name = file.slice(CORE.length);
    test(`${name} does no I/O, reads no clock, draws no randomness`, () => {
      assert.deepEqual(violations(readFileSync(file, "utf8")), []);
    });
  }
});
