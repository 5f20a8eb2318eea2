import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { describe, test } from "node:test";
import { generateTypes, TYPES_FILE } from "../../clients/typescript/scripts/openapi_types.ts";

describe("the client's generated types", () => {
  test("clients/typescript/src/openapi.ts is what openapi-typescript makes of src/http/openapi.json now", async () => {
    const committed = await readFile(TYPES_FILE, "utf8");
    const fresh = await generateTypes();
    assert.ok(fresh.includes("TurnStreamEvent"), "the generator read the document");
    assert.ok(
      committed === fresh,
      "the client's types are stale: the OpenAPI document changed; run `deno task client:types` and commit src/openapi.ts",
    );
  });
});
