/**
 * The engine knows no surface (DESIGN.md): it takes a turn and emits turn
 * events; the native API (src/http/) and the compatible ones (src/surfaces/)
 * frame them. No file of src/engine/ imports from either, so a new surface
 * never changes the engine. This test makes the rule fail CI.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const ENGINE = fileURLToPath(new URL("../../src/engine/", import.meta.url));
const SURFACE_IMPORT =
  /from\s+["'][^"']*\.\.\/(http|surfaces)\/|import\(\s*["'][^"']*\.\.\/(http|surfaces)\//;

export function importsASurface(source: string): boolean {
  return SURFACE_IMPORT.test(source);
}

describe("engine layering", () => {
  test("the scan catches an import from http/ or surfaces/, and nothing else", () => {
    assert.equal(importsASurface('import { x } from "../http/sse.ts";'), true);
    assert.equal(
      importsASurface('import type { D } from "../http/context.ts";'),
      true,
    );
    assert.equal(
      importsASurface('import { y } from "../surfaces/openai_answer.ts";'),
      true,
    );
    assert.equal(
      importsASurface('const m = await import("../http/sse.ts");'),
      true,
    );
    assert.equal(
      importsASurface('import { z } from "../store/runs.ts";'),
      false,
    );
    assert.equal(importsASurface('import { w } from "./http_call.ts";'), false);
  });

  test("no file of src/engine imports a surface", () => {
    const files = readdirSync(ENGINE).filter((f) => f.endsWith(".ts"));
    assert.ok(files.length > 10);
    const offending = files.filter((f) => importsASurface(readFileSync(`${ENGINE}${f}`, "utf8")));
    assert.deepEqual(offending, []);
  });
});
