/**
 * Holds every Responses API answer and stream event against the schemas of
 * OpenAI's own published OpenAPI document (the copy in
 * tests/surfaces/openai_responses_openapi.json, whose `x-source` names the
 * commit it was taken from). The document declares JSON Schema 2020-12 but
 * one of its schemas uses 2019-09's `$recursiveAnchor`, which ajv compiles
 * only in its 2019-09 dialect; the rest reads alike in both. `format:
 * unixtime` is OpenAI's own: an integer count of seconds.
 */
import { AssertionError } from "node:assert";
import * as ajvModule from "ajv/dist/2019.js";
import * as formatsModule from "ajv-formats";
import document from "../surfaces/openai_responses_openapi.json" with { type: "json" };
import type { TestApp } from "./app.ts";
import { checkedFetch } from "./compat_fetch.ts";

// deno-lint-ignore no-explicit-any
type Json = any;
type Validate = ((value: unknown) => boolean) & {
  errors?: { instancePath: string; message?: string; schemaPath: string }[] | null;
};

const BASE = "https://openai.invalid/schemas/";

function unwrapDefault(module: Json): Json {
  let value = module;
  while (typeof value !== "function" && value && "default" in value) value = value.default;
  return value;
}

function rewrite(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(rewrite);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Record<string, Json> = {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] = key === "$ref" && typeof value === "string"
      ? BASE + value.slice(value.lastIndexOf("/") + 1)
      : rewrite(value);
  }
  return out;
}

const schemas = (document as Json).components.schemas as Record<string, Json>;
let ajv: Json;

function validator(name: string): Validate {
  if (ajv === undefined) {
    const Ajv2019 = unwrapDefault(ajvModule);
    const addFormats = unwrapDefault(formatsModule);
    // Not strict: the document carries its own keywords (x-oaiMeta, discriminator, …).
    ajv = new Ajv2019({ strict: false, allErrors: true, allowUnionTypes: true });
    addFormats(ajv);
    ajv.addFormat("unixtime", { type: "number", validate: (n: number) => Number.isInteger(n) });
    for (const [n, s] of Object.entries(schemas)) ajv.addSchema(rewrite(s), BASE + n);
  }
  const v = ajv.getSchema(BASE + name) as Validate | undefined;
  if (v === undefined) throw new Error(`no schema ${name} in OpenAI's document`);
  return v;
}

/** Each stream event's schema by its `type`, from the document's ResponseStreamEvent. */
const EVENT_SCHEMAS: Map<string, string> = new Map(
  (schemas.ResponseStreamEvent.anyOf as { $ref: string }[]).flatMap(({ $ref }) => {
    const name = $ref.slice($ref.lastIndexOf("/") + 1);
    const type = schemas[name]?.properties?.type?.enum?.[0];
    return typeof type === "string" ? [[type, name] as [string, string]] : [];
  }),
);

/** How many answers and events were held against the document (a test asserts it grew). */
export const checked = { bodies: 0, events: 0 };

/** Throws unless `value` is valid as OpenAI's schema `name`. */
export function assertOpenAiSchema(name: string, value: unknown, context = name): void {
  const v = validator(name);
  if (!v(value)) {
    const errors = (v.errors ?? []).slice(0, 8).map((e) =>
      `  ${e.instancePath || "(root)"} ${e.message ?? ""} [${e.schemaPath}]`
    ).join("\n");
    throw new AssertionError({
      message: `not OpenAI's ${name} (${context}):\n${errors}\n${
        JSON.stringify(value).slice(0, 600)
      }`,
    });
  }
}

/** Throws unless `event` is one of OpenAI's response stream events, valid as its type's schema. */
export function assertOpenAiEvent(event: Record<string, unknown>): void {
  const name = EVENT_SCHEMAS.get(String(event.type));
  if (name === undefined) {
    throw new AssertionError({ message: `not an OpenAI response stream event: ${event.type}` });
  }
  assertOpenAiSchema(name, event, String(event.type));
}

/** The events of a Responses stream's bytes, checked: each valid, `sequence_number` 0, 1, 2, … */
export function assertOpenAiStream(text: string): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  for (const block of text.split("\n\n")) {
    const data = block.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6));
    if (data.length === 0) continue;
    const event = JSON.parse(data.join("\n"));
    const named = block.split("\n").find((l) => l.startsWith("event: "))?.slice(7);
    if (named !== undefined && named !== event.type) {
      throw new AssertionError({ message: `event line ${named} for data of ${event.type}` });
    }
    assertOpenAiEvent(event);
    if (event.sequence_number !== events.length) {
      throw new AssertionError({
        message: `sequence_number ${event.sequence_number} at event ${events.length}`,
      });
    }
    events.push(event);
  }
  return events;
}

/** OpenAI's schema of a Responses path's JSON answer, by method, path and status. */
function bodySchema(method: string, path: string, status: number): string | null {
  if (!path.startsWith("/v1/responses")) return null;
  if (status >= 400) return "ErrorResponse";
  if (path === "/v1/responses/input_tokens") return "TokenCountsResource";
  if (path.endsWith("/input_items")) return "ResponseItemList";
  if (method === "DELETE") return null; // OpenAI's document gives its 200 no schema
  return "Response";
}

/**
 * The `fetch` the SDKs get in the Responses tests: the service in process,
 * every answer checked against Switchyard's own document (checkedFetch) and,
 * on `/v1/responses…`, against OpenAI's: JSON bodies by their schema, streams
 * event by event.
 */
export function responsesFetch(app: () => Pick<TestApp, "handler">) {
  const inner = checkedFetch(app);
  return async (url: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(url, init);
    const response = await inner(request);
    const path = new URL(request.url).pathname;
    const text = await response.clone().text();
    const type = response.headers.get("content-type") ?? "";
    if (path.startsWith("/v1/responses") && type.startsWith("text/event-stream")) {
      checked.events += assertOpenAiStream(text).length;
    } else {
      const schema = bodySchema(request.method, path, response.status);
      if (schema !== null) {
        assertOpenAiSchema(schema, JSON.parse(text), `${request.method} ${path}`);
        checked.bodies++;
      }
    }
    return response;
  };
}
