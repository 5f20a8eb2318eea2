import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { ERROR_CODES, type ErrorCode } from "../../src/core/errors.ts";
import { HTTP_STATUS } from "../../src/http/error_response.ts";
import {
  assertMatchesOpenApi,
  assertMatchesSchema,
  assertResponseMatchesOpenApi,
  createOpenApiAjv,
  matchPathTemplate,
  openApiDocument as doc,
  resolveRef,
  rewriteRefs,
} from "../support/openapi.ts";

const ID = "0190a5b8-7c1e-7a3b-8c2d-1234567890ab";
const NOW = "2026-01-01T00:00:00.000Z";
const JSON_HEADERS = new Headers({ "content-type": "application/json; charset=utf-8" });

/** The endpoint inventory of interface.md, plus the document itself. */
const INVENTORY: [string, string][] = [
  ["get", "/status"],
  ["get", "/api/v1/openapi.json"],
  ["post", "/api/v1/auth/bootstrap"],
  ["post", "/api/v1/auth/sign-in"],
  ["post", "/api/v1/auth/sign-out"],
  ["get", "/api/v1/auth/me"],
  ["post", "/api/v1/auth/keys"],
  ["get", "/api/v1/auth/keys"],
  ["delete", "/api/v1/auth/keys/{key_id}"],
  ["post", "/api/v1/admin/users"],
  ["get", "/api/v1/admin/users"],
  ["put", "/api/v1/admin/users/{user_id}"],
  ["get", "/api/v1/admin/usage"],
  ["get", "/api/v1/llm/providers"],
  ["get", "/api/v1/llm/models"],
  ["post", "/api/v1/sessions"],
  ["get", "/api/v1/sessions"],
  ["get", "/api/v1/sessions/{session_id}"],
  ["put", "/api/v1/sessions/{session_id}"],
  ["delete", "/api/v1/sessions/{session_id}"],
  ["post", "/api/v1/sessions/{session_id}/execute"],
  ["post", "/api/v1/sessions/{session_id}/continue"],
  ["post", "/api/v1/sessions/{session_id}/preview"],
  ["get", "/api/v1/sessions/{session_id}/traces"],
  ["get", "/api/v1/sessions/{session_id}/usage"],
  ["get", "/api/v1/usage"],
  ["get", "/api/v1/policies"],
  ["put", "/api/v1/policies/{name}"],
  ["get", "/api/v1/policies/{name}"],
  ["delete", "/api/v1/policies/{name}"],
  ["get", "/api/v1/policies/{name}/versions/{version}"],
  ["post", "/v1/chat/completions"],
  ["post", "/v1/messages"],
  ["post", "/v1/messages/count_tokens"],
  ["post", "/v1/responses"],
  ["post", "/v1/responses/input_tokens"],
  ["get", "/v1/responses/{response_id}"],
  ["delete", "/v1/responses/{response_id}"],
  ["get", "/v1/responses/{response_id}/input_items"],
  ["get", "/v1/models"],
  ["get", "/v1/models/{model_id}"],
  ["get", "/v1/models/{provider}/{model_id}"],
];
const PUBLIC = ["/status", "/api/v1/openapi.json", "/api/v1/auth/bootstrap"];
const ERROR_RESPONSES: Record<string, number> = {
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  Conflict: 409,
  PayloadTooLarge: 413,
  UnprocessableEntity: 422,
  TooManyRequests: 429,
  InternalError: 500,
  NotImplemented: 501,
  BadGateway: 502,
  ServiceUnavailable: 503,
  GatewayTimeout: 504,
};
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];

function ok(method: string, url: string, status: number, body: unknown, headers = JSON_HEADERS) {
  assertMatchesOpenApi(method, url, { status, headers, body });
}
function rejects(method: string, url: string, status: number, body: unknown, pattern: RegExp) {
  assert.throws(
    () => ok(method, url, status, body),
    (e: Error) => e.name === "AssertionError" && pattern.test(e.message),
  );
}
function walk(node: unknown, visit: (value: Record<string, unknown>) => void): void {
  if (Array.isArray(node)) node.forEach((item) => walk(item, visit));
  else if (node !== null && typeof node === "object") {
    visit(node as Record<string, unknown>);
    Object.values(node).forEach((value) => walk(value, visit));
  }
}

const summary = {
  id: ID,
  title: "fix auth",
  encrypted: false,
  created_at: NOW,
  updated_at: NOW,
  archived: false,
};
const completed = {
  status: "completed",
  data: {
    message: { role: "assistant", content: "done", provider: "ollama", model: "llama3" },
    classification: { intent: "chat", source: "inferred", reason: "r", matched_rule: null },
    routing: {
      task_type: "chat",
      provider: "ollama",
      model: "llama3",
      matched_rule: "local",
      fallback_used: false,
      override_used: false,
    },
    context: { included: ["file a.ts"], excluded: [] },
    usage: { input_tokens: 3, output_tokens: 4, estimated_cost: "0", currency: "USD" },
    trace_id: ID,
    to_encrypt: {},
  },
  allowed_continuations: [],
};

describe("OpenAPI document", () => {
  test("parses as OpenAPI 3.1.0 with the pre-release interface version", async () => {
    const text = await readFile(new URL("../../src/http/openapi.json", import.meta.url), "utf8");
    const parsed = JSON.parse(text);
    assert.equal(parsed.openapi, "3.1.0");
    assert.equal(parsed.info.version, "0.1.0-alpha.1");
    assert.equal(parsed.info.title, "Switchyard");
    assert.deepEqual(parsed, doc);
  });

  test("documents every endpoint of the inventory and nothing else", () => {
    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item as object).filter((key) => METHODS.includes(key)).map((m) => `${m} ${path}`)
    );
    assert.deepEqual(documented.sort(), INVENTORY.map(([m, p]) => `${m} ${p}`).sort());
  });

  test("public endpoints need no auth, sign-in the API key, admin the operator's token, the rest a bearer token", () => {
    assert.deepEqual(doc.security, [{ bearer: [] }]);
    assert.equal(doc.components.securitySchemes.bearer.scheme, "bearer");
    assert.equal(doc.components.securitySchemes.apiKey.name, "X-Router-Api-Key");
    assert.equal(doc.components.securitySchemes.operator.scheme, "bearer");
    for (const [method, path] of INVENTORY) {
      const security = doc.paths[path][method].security;
      if (PUBLIC.includes(path)) assert.deepEqual(security, [], path);
      else if (path === "/api/v1/auth/sign-in") assert.deepEqual(security, [{ apiKey: [] }]);
      else if (path.startsWith("/api/v1/admin/")) {
        assert.deepEqual(security, [{ operator: [] }], `${method} ${path} wants the operator`);
      } else assert.equal(security, undefined, `${method} ${path} inherits bearer`);
    }
  });

  test("every $ref resolves", () => {
    let count = 0;
    walk(doc, (node) => {
      if (typeof node.$ref !== "string") return;
      count++;
      assert.doesNotThrow(() => resolveRef(doc, node), `$ref ${node.$ref}`);
    });
    assert.ok(count > 100, `only ${count} refs found`);
  });

  test("every schema compiles under ajv strict mode", () => {
    const ajv = createOpenApiAjv();
    for (const name of Object.keys(doc.components.schemas)) {
      assert.equal(typeof ajv.getSchema(`https://switchyard.invalid/schemas/${name}`), "function");
    }
    let media = 0;
    walk(doc.paths, (node) => {
      const content = node.content as Record<string, { schema?: unknown }> | undefined;
      if (typeof node.description === "string" && content) {
        for (const entry of Object.values(content)) {
          if (entry.schema) {
            media++, assert.doesNotThrow(() => ajv.compile(rewriteRefs(entry.schema)));
          }
        }
      }
    });
    assert.ok(media >= 18);
  });

  test("error codes equal src/core/errors.ts and each sits under its HTTP status", () => {
    assert.deepEqual(doc.components.schemas.ErrorCode.enum, [...ERROR_CODES]);
    const byStatus = new Map<number, ErrorCode[]>();
    for (const [name, status] of Object.entries(ERROR_RESPONSES)) {
      const schema = doc.components.responses[name].content["application/json"].schema;
      byStatus.set(status, schema.allOf[1].properties.error.properties.code.enum);
    }
    for (const code of ERROR_CODES) {
      assert.ok(
        byStatus.get(HTTP_STATUS[code])?.includes(code),
        `${code} under ${HTTP_STATUS[code]}`,
      );
    }
    for (const [status, codes] of byStatus) {
      for (const code of codes) {
        // invalid_request is 400 for an unparseable body and 422 otherwise (decisions.md §2).
        const expected = code === "invalid_request" ? [400, 422] : [HTTP_STATUS[code]];
        assert.ok(expected.includes(status), `${code} listed under ${status}`);
      }
    }
  });

  test("path templates match concrete paths, literal paths first", () => {
    assert.equal(
      matchPathTemplate(`/api/v1/sessions/${ID}/traces`),
      "/api/v1/sessions/{session_id}/traces",
    );
    assert.equal(matchPathTemplate("/api/v1/sessions"), "/api/v1/sessions");
    assert.equal(matchPathTemplate("/api/v1/status"), undefined);
  });
});

describe("OpenAPI response validator", () => {
  test("accepts valid health, auth and session bodies", () => {
    ok("GET", "http://127.0.0.1/status?x=1", 200, { status: "ok", version: "0.1.0" });
    ok("POST", "/api/v1/auth/sign-in", 200, {
      token: `${"a".repeat(32)}-${"b".repeat(64)}`,
      expires_at: NOW,
    });
    ok("POST", "/api/v1/sessions", 201, { session: { ...summary, encrypted: true, key_id: "k1" } });
    ok("GET", "/api/v1/sessions?scope=a", 200, { sessions: [summary, { ...summary, scope: "a" }] });
    const envelope = {
      version: 1,
      algorithm: "xchacha20poly1305",
      key_id: "k",
      nonce: "n",
      ciphertext: "c",
    };
    ok("GET", `/api/v1/sessions/${ID}`, 200, {
      session: {
        id: ID,
        title: "t",
        key_id: "k",
        created_at: NOW,
        updated_at: NOW,
        messages: [{ role: "user", content: { encrypted: envelope } }],
        metadata: {},
      },
    });
  });

  test("rejects a summary with key_id null or an encrypted flag that disagrees", () => {
    const url = "/api/v1/sessions";
    rejects("POST", url, 201, { session: { ...summary, key_id: null } }, /key_id/);
    rejects("POST", url, 201, { session: { ...summary, encrypted: true } }, /key_id/);
    rejects("POST", url, 201, { session: { ...summary, key_id: "k" } }, /key_id/);
  });

  test("rejects a session detail carrying an encrypted flag", () => {
    const detail = {
      id: ID,
      title: null,
      created_at: NOW,
      updated_at: NOW,
      messages: [],
      metadata: {},
    };
    ok("GET", `/api/v1/sessions/${ID}`, 200, { session: detail });
    rejects(
      "GET",
      `/api/v1/sessions/${ID}`,
      200,
      { session: { ...detail, encrypted: false } },
      /encrypted/,
    );
  });

  test("rejects unknown error codes, codes of another status and extra fields", () => {
    rejects("GET", "/api/v1/auth/me", 401, { error: { code: "nope", message: "m" } }, /code/);
    rejects(
      "GET",
      "/api/v1/auth/me",
      401,
      { error: { code: "session_not_found", message: "m" } },
      /code/,
    );
    rejects(
      "GET",
      "/api/v1/auth/me",
      401,
      { error: { code: "invalid_token", message: "m", x: 1 } },
      /x/,
    );
    ok("GET", "/api/v1/auth/me", 401, {
      error: { code: "invalid_token", message: "m", details: {} },
    });
  });

  test("rejects undocumented statuses, methods, paths and content types", () => {
    rejects("GET", "/status", 418, {}, /status 418 is not documented/);
    rejects("PATCH", "/status", 200, {}, /method PATCH/);
    rejects("GET", "/nope", 200, {}, /undocumented path/);
    assert.throws(() => ok("GET", "/status", 200, { status: "ok", version: "1" }, new Headers()));
    const notFound = { error: { code: "not_found", message: "m" } };
    ok("GET", "/api/v1/status", 404, notFound);
    rejects("GET", "/nope", 404, { error: { code: "session_not_found", message: "m" } }, /code/);
    const notAllowed = { error: { code: "method_not_allowed", message: "m" } };
    rejects("PATCH", "/status", 405, notAllowed, /Allow/);
    const allow = new Headers({ "content-type": "application/json", allow: "GET" });
    ok("PATCH", "/status", 405, notAllowed, allow);
  });

  test("checks turn envelopes by status, including allowed continuations", () => {
    const url = `/api/v1/sessions/${ID}/execute`;
    ok("POST", url, 200, completed);
    ok("POST", url, 200, { ...completed, allowed_continuations: ["break", "sealed"] });
    rejects(
      "POST",
      url,
      200,
      { ...completed, allowed_continuations: ["break"] },
      /allowed_continuations/,
    );
    rejects("POST", url, 200, {
      ...completed,
      data: { ...completed.data, usage: { estimated_cost: 1e-7, currency: "USD" } },
    }, /estimated_cost/);
    const tool = {
      call_id: ID,
      name: "read_file",
      arguments: { path: "a" },
      requires_approval: "ask",
    };
    const awaiting = {
      status: "awaiting_tool",
      data: { tool_requests: [tool], trace_id: ID },
      allowed_continuations: ["tool_results", "inject", "break"],
    };
    ok("POST", url, 200, awaiting);
    rejects("POST", url, 200, { ...awaiting, allowed_continuations: [] }, /allowed_continuations/);
    ok("POST", url, 200, "data: {}\n\n", new Headers({ "content-type": "text/event-stream" }));
    rejects("GET", `/api/v1/sessions/${ID}/preview`, 200, {}, /method GET/);
  });

  test("checks stream events, traces, usage and model listings", () => {
    assertMatchesSchema("TurnStreamEvent", { type: "text_delta", delta: "hi" });
    assertMatchesSchema("TurnStreamEvent", { type: "turn_end", ...completed });
    assert.throws(() =>
      assertMatchesSchema("TurnStreamEvent", { type: "turn_end", status: "idle" })
    );
    const event = {
      event_type: "cost",
      task_type: "chat",
      provider: "openai",
      model: "gpt-4o",
      created_at: NOW,
      trace_id: ID,
      payload: { plaintext: { type: "cost", provider: "openai", model: "gpt-4o", cost: "0.0012" } },
    };
    const traces = `/api/v1/sessions/${ID}/traces?limit=5`;
    ok("GET", traces, 200, { trace: { session_id: ID, events: [event] } });
    const wrongType = {
      ...event,
      payload: { plaintext: { ...event.payload.plaintext, type: "message" } },
    };
    rejects("GET", traces, 200, { trace: { session_id: ID, events: [wrongType] } }, /type/);
    ok("GET", `/api/v1/sessions/${ID}/usage`, 200, {
      total: { currency: "USD" },
      by_model: [{ provider: "openai", model: "gpt-4o", request_count: 2 }],
      by_task_type: [{ task_type: "chat", request_count: 2 }],
    });
    const unavailable = [{ provider: "openai", reason: "missing_credentials" }];
    ok("GET", "/api/v1/llm/models", 200, { models: [], unavailable });
    rejects("GET", "/api/v1/llm/models", 200, {
      models: [],
      unavailable: [{ provider: "x", reason: "gone" }],
    }, /reason/);
  });

  test("reads, checks and returns a Response body", async () => {
    const body = { status: "ok", version: "1" };
    const response = new Response(JSON.stringify(body), { headers: JSON_HEADERS });
    assert.deepEqual(await assertResponseMatchesOpenApi("GET", "/status", response), body);
    const bad = new Response(JSON.stringify({ status: "down", version: "1" }), {
      headers: JSON_HEADERS,
    });
    await assert.rejects(assertResponseMatchesOpenApi("GET", "/status", bad), /status/);
  });
});
