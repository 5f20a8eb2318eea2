/**
 * Generates `src/openapi.ts`, the types of the client, from the service's own
 * OpenAPI document (`src/http/openapi.json`), so client and server cannot
 * drift: tests/clients/generated_types_test.ts fails when the file is stale.
 * Run `deno task client:types` after changing the document.
 */
import { readFile, writeFile } from "node:fs/promises";
import process from "node:process";
import openapiTS, { astToString } from "openapi-typescript";

const DOCUMENT = new URL("../../../src/http/openapi.json", import.meta.url);
export const TYPES_FILE = new URL("../src/openapi.ts", import.meta.url);

const HEADER =
  `// Generated from src/http/openapi.json by clients/typescript/scripts/openapi_types.ts.
// Do not edit: run \`deno task client:types\` instead.

`;

/** The text `src/openapi.ts` must hold for the document as it is now. */
export async function generateTypes(): Promise<string> {
  const document = JSON.parse(await readFile(DOCUMENT, "utf8"));
  const ast = await openapiTS(document, {
    exportType: true,
    emptyObjectsUnknown: true,
    silent: true,
  });
  return HEADER + astToString(ast);
}

if (import.meta.main ?? process.argv[1] === new URL(import.meta.url).pathname) {
  await writeFile(TYPES_FILE, await generateTypes());
  console.log(`wrote ${TYPES_FILE.pathname}`);
}
