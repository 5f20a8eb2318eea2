/**
 * Checks real HTTP responses against `src/http/openapi.json`, so every HTTP test
 * also proves the document tells the truth. Schemas are compiled once per
 * (path, method, status) with ajv's JSON Schema 2020-12 dialect, the one
 * OpenAPI 3.1 uses.
 */
import { AssertionError } from "node:assert";
import * as ajvModule from "ajv/dist/2020.js";
import * as formatsModule from "ajv-formats";
import openapiJson from "../../src/http/openapi.json" with { type: "json" };

// deno-lint-ignore no-explicit-any
type Json = any;
type Validate = ((value: unknown) => boolean) & { errors?: AjvError[] | null };
interface AjvError {
  instancePath: string;
  schemaPath: string;
  message?: string;
  params?: Record<string, unknown>;
}

export const openApiDocument: Json = openapiJson;

const SCHEMA_PREFIX = "#/components/schemas/";
const SCHEMA_BASE = "https://switchyard.invalid/schemas/";

/**
 * ajv and ajv-formats are CommonJS; Deno and Bun disagree on whether the
 * default import is `module.exports` or `exports.default`, so unwrap by hand.
 */
function unwrapDefault(module: Json): Json {
  let value = module;
  while (typeof value !== "function" && value && "default" in value) value = value.default;
  return value;
}

/** A copy of `schema` whose component `$ref`s point at the ids `createOpenApiAjv` registers. */
export function rewriteRefs(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(rewriteRefs);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Record<string, Json> = {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] = key === "$ref" && typeof value === "string" && value.startsWith(SCHEMA_PREFIX)
      ? SCHEMA_BASE + value.slice(SCHEMA_PREFIX.length)
      : rewriteRefs(value);
  }
  return out;
}

/** A fresh ajv instance holding every component schema of `document`. */
export function createOpenApiAjv(document: Json = openApiDocument): Json {
  const Ajv2020 = unwrapDefault(ajvModule);
  const addFormats = unwrapDefault(formatsModule);
  // strict mode turns a misspelt keyword in the document into a compile error.
  const ajv = new Ajv2020({
    strict: true,
    strictRequired: false,
    allErrors: true,
    allowUnionTypes: true,
  });
  addFormats(ajv);
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) {
    ajv.addSchema(rewriteRefs(schema), SCHEMA_BASE + name);
  }
  return ajv;
}

let sharedAjv: Json | undefined;
const compiled = new Map<string, Validate>();

function compile(key: string, schema: Json): Validate {
  let validate = compiled.get(key);
  if (!validate) {
    sharedAjv ??= createOpenApiAjv();
    validate = sharedAjv.compile(rewriteRefs(schema)) as Validate;
    compiled.set(key, validate);
  }
  return validate;
}

/** Follows a local `$ref` (`#/a/b`) through the document, chaining refs. */
export function resolveRef(document: Json, value: Json): Json {
  let current = value;
  for (let hops = 0; current && typeof current.$ref === "string"; hops++) {
    if (hops > 20 || !current.$ref.startsWith("#/")) throw new Error(`bad $ref ${current.$ref}`);
    current = current.$ref.slice(2).split("/").reduce(
      (node: Json, part: string) => node?.[part.replaceAll("~1", "/").replaceAll("~0", "~")],
      document,
    );
    if (current === undefined) throw new Error(`unresolved $ref ${value.$ref}`);
  }
  return current;
}

const templates = Object.keys(openApiDocument.paths).map((template) => ({
  template,
  params: (template.match(/\{/g) ?? []).length,
  pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`),
})).sort((a, b) => a.params - b.params); // literal paths win over templated ones

/** The path template a concrete path belongs to, or `undefined`. */
export function matchPathTemplate(pathname: string): string | undefined {
  return templates.find((t) => t.pattern.test(pathname))?.template;
}

function fail(context: string, problem: string): never {
  throw new AssertionError({ message: `OpenAPI mismatch for ${context}: ${problem}` });
}

function formatErrors(errors: AjvError[] | null | undefined): string {
  return (errors ?? []).slice(0, 12).map((e) =>
    `  ${e.instancePath || "(root)"} ${e.message ?? ""} ${
      JSON.stringify(e.params ?? {})
    } [${e.schemaPath}]`
  ).join("\n");
}

/** The documented response object for a request, by exact status, `4XX` range or `default`. */
function findResponse(method: string, pathname: string, status: number, context: string) {
  const template = matchPathTemplate(pathname);
  const compatible = openApiDocument["x-unmatched-responses"].compatible;
  // Unknown paths and methods under /v1/ answer in a compatible API's shape.
  const unmatched = pathname.startsWith(compatible.prefix)
    ? compatible
    : openApiDocument["x-unmatched-responses"];
  if (template === undefined) {
    const response = unmatched.path[String(status)];
    if (!response) {
      fail(context, `undocumented path (a status ${status} is not the unknown-path answer)`);
    }
    const where = unmatched === compatible ? "compatible " : "";
    return {
      key: `${where}unmatched path ${status}`,
      response: resolveRef(openApiDocument, response),
    };
  }
  const operation = openApiDocument.paths[template][method.toLowerCase()];
  if (!operation) {
    const response = unmatched.method[String(status)];
    if (!response) fail(context, `method ${method} is not documented for ${template}`);
    return {
      key: `${template} unmatched method ${status}`,
      response: resolveRef(openApiDocument, response),
    };
  }
  const responses = operation.responses;
  const code = [String(status), `${String(status)[0]}XX`, "default"].find((c) => c in responses);
  if (code === undefined) {
    fail(
      context,
      `status ${status} is not documented (documented: ${Object.keys(responses).join(", ")})`,
    );
  }
  return {
    key: `${method.toLowerCase()} ${template} ${code}`,
    response: resolveRef(openApiDocument, responses[code]),
  };
}

export interface ObservedResponse {
  status: number;
  headers: Headers;
  /** The parsed JSON body (or the raw text for a non-JSON response). */
  body?: unknown;
}

/**
 * Throws an AssertionError unless the response is documented for this method and
 * path and its content type, required headers and body match the document.
 * `url` may be absolute or a path such as `/api/v1/sessions/<id>?scope=x`.
 */
export function assertMatchesOpenApi(
  method: string,
  url: string | URL,
  response: ObservedResponse,
): void {
  const pathname = new URL(url, "http://localhost").pathname;
  const context = `${method.toUpperCase()} ${pathname} -> ${response.status}`;
  const { key, response: documented } = findResponse(method, pathname, response.status, context);
  for (const [name, header] of Object.entries<Json>(documented.headers ?? {})) {
    if (resolveRef(openApiDocument, header).required && !response.headers.has(name)) {
      fail(context, `missing required header ${name}`);
    }
  }
  const content: Record<string, Json> = documented.content ?? {};
  const contentType = response.headers.get("content-type") ?? "";
  const mediaType = contentType.split(";")[0].trim().toLowerCase();
  if (Object.keys(content).length === 0) {
    if (response.body !== undefined && response.body !== null && response.body !== "") {
      fail(context, "a body was sent where none is documented");
    }
    return;
  }
  if (!(mediaType in content)) {
    fail(
      context,
      `content type "${contentType}" not documented (expected ${Object.keys(content)})`,
    );
  }
  // Stream bodies are checked event by event with assertMatchesSchema.
  if (mediaType !== "application/json") return;
  const validate = compile(`${key} ${mediaType}`, content[mediaType].schema ?? {});
  if (!validate(response.body)) {
    fail(
      context,
      `body does not match the schema:\n${formatErrors(validate.errors)}\nbody: ${
        JSON.stringify(response.body).slice(0, 2000)
      }`,
    );
  }
}

/** Reads and parses `response`, asserts it against the document and returns the body. */
export async function assertResponseMatchesOpenApi(
  method: string,
  url: string | URL,
  response: Response,
): Promise<unknown> {
  const text = await response.text();
  const isJson = (response.headers.get("content-type") ?? "").includes("json");
  let body: unknown = text === "" ? undefined : text;
  if (isJson && text !== "") {
    try {
      body = JSON.parse(text);
    } catch {
      fail(`${method.toUpperCase()} ${url} -> ${response.status}`, `invalid JSON body: ${text}`);
    }
  }
  assertMatchesOpenApi(method, url, { status: response.status, headers: response.headers, body });
  return body;
}

/** Asserts `value` against `#/components/schemas/<name>`, e.g. one `TurnStreamEvent`. */
export function assertMatchesSchema(name: string, value: unknown): void {
  if (!(name in (openApiDocument.components?.schemas ?? {}))) {
    throw new AssertionError({ message: `OpenAPI has no component schema ${name}` });
  }
  const validate = compile(`schema ${name}`, { $ref: SCHEMA_PREFIX + name });
  if (!validate(value)) {
    fail(`schema ${name}`, `value does not match:\n${formatErrors(validate.errors)}`);
  }
}
