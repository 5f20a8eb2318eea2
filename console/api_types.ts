/**
 * Generates `console/src/api_schema.gen.ts`, the TypeScript types of the public API, from
 * `src/http/openapi.json` (`deno task console:types`). The console imports only these types, so
 * a change of the API that the console does not follow fails its type check; a test keeps the
 * committed file equal to what this generates.
 */
import { readFile, writeFile } from "node:fs/promises";
import openapiTS, { astToString } from "openapi-typescript";

const root = new URL("../", import.meta.url);
export const GENERATED = new URL("console/src/api_schema.gen.ts", root);

export async function generateApiTypes(): Promise<string> {
  const document = JSON.parse(await readFile(new URL("src/http/openapi.json", root), "utf8"));
  const ast = await openapiTS(document, { exportType: true });
  return `// Generated from src/http/openapi.json by console/api_types.ts: do not edit.\n// deno-fmt-ignore-file\n// deno-lint-ignore-file\n${
    astToString(ast)
  }`;
}

if (import.meta.main) await writeFile(GENERATED, await generateApiTypes());
