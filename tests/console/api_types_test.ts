/**
 * The console's API types are generated from the OpenAPI document; the committed file must be
 * what the generator makes now, so the console cannot drift from the API unnoticed
 * (`deno task console:types` regenerates it).
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { generateApiTypes, GENERATED } from "../../console/api_types.ts";

test("the console's API types match the OpenAPI document", async () => {
  const committed = await readFile(GENERATED, "utf8");
  assert.ok(
    committed === await generateApiTypes(),
    "console/src/api_schema.gen.ts is stale: run `deno task console:types`",
  );
});
