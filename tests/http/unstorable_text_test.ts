/**
 * Property: a NUL character or an unpaired UTF-16 surrogate in any string of
 * any request — every body field and map key the OpenAPI document describes,
 * every query parameter — is refused as a client error naming the field, never
 * a 5xx, and changes nothing stored. The bodies are generated from the
 * document's request schemas, so a field added to the document is covered
 * without touching this test. Runs on PGlite and, with DATABASE_URL, on
 * PostgreSQL: they reject such text in different ways.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { unstorableReason } from "../../src/http/unstorable_text.ts";
import { type Account, call, createTestApp, signUp, type TestApp } from "../support/app.ts";
import { storesUnderTest } from "../support/databases.ts";
import { dumpDatabase } from "../support/db_dump.ts";
import { openAiReply } from "../support/engine_app.ts";
import { type FakeProvider, startFakeProvider } from "../support/fake_provider.ts";
import { openApiDocument } from "../support/openapi.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const HOSTILE = ["\u0000", "\ud800", "\udfff"];
const OPERATOR = "operator-token-of-the-unstorable-test";

/** The operator's paths take the operator's token; every other one the user's. */
const tokenFor = (path: string, user: Account) =>
  path.startsWith("/api/v1/admin/") ? OPERATOR : user.token;

/** The field a 400 names: OpenAI's shape (under /v1/) has it in `param`, the native one in `details`. */
const pathOf = (path: string, body: Json) =>
  path.startsWith("/v1/") ? body.error.param : body.error.details.path;

/** The refusal as the route's API shapes it: native, OpenAI's (`param`) or Anthropic's (message). */
function assertRefusedNaming(
  r: { status: number; body: Json },
  template: string,
  path: string,
  where: string,
) {
  // Natively 422; the compatible APIs answer invalid input with 400 (decisions.md §12).
  assert.equal(
    r.status,
    template.startsWith("/v1/") ? 400 : 422,
    `${where}: ${JSON.stringify(r.body)}`,
  );
  if (template.startsWith("/v1/messages")) {
    assert.equal(r.body.type, "error", where);
    assert.equal(r.body.error.type, "invalid_request_error", where);
    assert.ok(r.body.error.message.includes(`${path}:`), `${where}: ${r.body.error.message}`);
  } else if (template.startsWith("/v1/")) {
    assert.equal(r.body.error.code, "invalid_request", where);
    assert.equal(r.body.error.param, path, where);
  } else {
    assert.equal(r.body.error.code, "invalid_request", where);
    assert.equal(r.body.error.details.path, path, where);
  }
}

function resolve(schema: Json): Json {
  while (schema?.$ref) schema = openApiDocument.components.schemas[schema.$ref.split("/").pop()];
  return schema;
}

/** A value of every string the pattern of a schema asks for (the document's own patterns). */
function sampleString(schema: Json): string {
  if (schema.examples?.[0] !== undefined) return String(schema.examples[0]);
  const pattern: string | undefined = schema.pattern;
  if (pattern?.startsWith("^(message|")) return "message:1";
  if (pattern?.includes("[0-9]")) return "1";
  if (pattern?.includes("/")) return "openai/gpt-4o-mini";
  return "some text";
}

/** Every variant of a value of `schema` with each optional field present (oneOf at any depth). */
function samples(schema: Json): Json[] {
  schema = resolve(schema);
  const variants = schema.oneOf ?? schema.anyOf;
  if (variants) {
    return variants.map(resolve).filter((v: Json) => v.type !== "null").flatMap(samples);
  }
  if (schema.allOf) {
    return [Object.assign({}, ...schema.allOf.map((s: Json) => samples(s)[0]))];
  }
  if ("const" in schema) return [schema.const];
  if (schema.enum) return [schema.enum[0]];
  const type = Array.isArray(schema.type)
    ? schema.type.find((t: string) => t !== "null")
    : schema.type;
  switch (type) {
    case "string":
      return [sampleString(schema)];
    case "integer":
    case "number":
      return [schema.minimum ?? 1];
    case "boolean":
      return [false];
    case "array":
      return samples(schema.items).map((item) => [item]);
    default: {
      // One object per variant of each property; the first variant elsewhere.
      const props = Object.entries(schema.properties ?? {}) as [string, Json][];
      const first = Object.fromEntries(props.map(([k, s]) => [k, samples(s)[0]]));
      if (typeof schema.additionalProperties === "object") {
        const key = schema.propertyNames ? sampleString(resolve(schema.propertyNames)) : "key";
        first[key] = samples(schema.additionalProperties)[0];
      }
      const out = [first];
      for (const [k, s] of props) {
        for (const v of samples(s).slice(1)) out.push({ ...first, [k]: v });
      }
      return out;
    }
  }
}

interface Site {
  /** The field, for messages. */
  field: string;
  /** The body with `text` put in this site, and the path the service names it by. */
  put(text: (original: string) => string): { body: Json; path: string };
}

const fieldName = (path: string, key: string) =>
  /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)
    ? (path === "" ? key : `${path}.${key}`)
    : `${path}[${JSON.stringify(key)}]`;

/** Every string value and every object key of a body, each as a site to poison. */
function sites(body: Json): Site[] {
  const out: Site[] = [];
  const walk = (node: Json, path: string, rebuild: (v: Json) => Json) => {
    if (typeof node === "string") {
      out.push({ field: path, put: (text) => ({ body: rebuild(text(node)), path }) });
    } else if (Array.isArray(node)) {
      node.forEach((item, i) =>
        walk(item, `${path}[${i}]`, (v) => rebuild(node.map((x, j) => (j === i ? v : x))))
      );
    } else if (node !== null && typeof node === "object") {
      for (const [key, value] of Object.entries(node)) {
        walk(value, fieldName(path, key), (v) => rebuild({ ...node, [key]: v }));
        out.push({
          field: `${fieldName(path, key)} (its key)`,
          put: (text) => ({
            body: rebuild(Object.fromEntries(
              Object.entries(node).map(([k, v]) => [k === key ? text(k) : k, v]),
            )),
            path: fieldName(path, text(key)),
          }),
        });
      }
    }
  };
  walk(body, "", (v) => v);
  return out;
}

/** Puts `bad` at the start, the middle or the end of a string, turn by turn. */
function poison(bad: string, turn: number) {
  return (original: string) => {
    const at = [0, Math.floor(original.length / 2), original.length][turn % 3];
    return original.slice(0, at) + bad + original.slice(at);
  };
}

interface Operation {
  method: string;
  template: string;
  schema: Json;
}

function bodyOperations(): Operation[] {
  const out: Operation[] = [];
  for (const [template, ops] of Object.entries(openApiDocument.paths) as [string, Json][]) {
    for (const [method, op] of Object.entries(ops) as [string, Json][]) {
      const schema = op?.requestBody?.content?.["application/json"]?.schema;
      if (schema) out.push({ method: method.toUpperCase(), template, schema });
    }
  }
  return out;
}

function queryOperations(): { template: string; names: string[] }[] {
  const out: { template: string; names: string[] }[] = [];
  for (const [template, ops] of Object.entries(openApiDocument.paths) as [string, Json][]) {
    const names = ((ops.get?.parameters ?? []) as Json[]).map(resolve)
      .filter((p) => p.in === "query").map((p) => p.name as string);
    if (names.length > 0) out.push({ template, names });
  }
  return out;
}

test("the document has request bodies and query parameters to drive the property", () => {
  const operations = bodyOperations().map((o) => `${o.method} ${o.template}`);
  for (const expected of ["POST /api/v1/sessions", "POST /api/v1/sessions/{session_id}/continue"]) {
    assert.ok(operations.includes(expected), expected);
  }
  assert.ok(queryOperations().some((q) => q.names.includes("title")));
});

test("the reason names NUL and each kind of lone surrogate, and passes paired ones", () => {
  assert.match(unstorableReason("a\u0000b")!, /NUL character \(U\+0000\)/);
  assert.match(unstorableReason("\ud800x")!, /U\+D800/);
  assert.match(unstorableReason("x\udfff")!, /U\+DFFF/);
  assert.equal(unstorableReason("emoji \ud83d\ude00 and \\u0000 as text"), null);
});

for (const store of storesUnderTest(process.env)) {
  describe(`unstorable text never reaches the store (${store.name})`, () => {
    let app: TestApp;
    let openai: FakeProvider;
    let alice: Account;
    let dispose: () => Promise<void>;
    let plain: string;
    let waiting: string;
    let callId: string;

    before(async () => {
      const opened = await store.open();
      dispose = opened.dispose;
      openai = await startFakeProvider();
      app = await createTestApp({
        db: opened.db,
        providers: { openai: { base_url: `${openai.url}/v1`, models: ["gpt-4o-mini"] } },
        // Thousands of requests from one user: the rate limits are another test's subject.
        configure: (config) => {
          config.limits.rate.enabled = false;
          config.auth.operatorToken = OPERATOR;
        },
      });
      alice = await signUp(app);
      const create = (body: Json) =>
        call(app, "POST", "/api/v1/sessions", { token: alice.token, body });
      plain = (await create({ title: "plain", scope: "s" })).body.session.id;
      waiting = (await create({ title: "waiting" })).body.session.id;
      // A run paused on a tool call, so a continuation would be taken and stored.
      openai.enqueue(openAiReply({ calls: [{ name: "read_file", arguments: { path: "a.ts" } }] }));
      const paused = await call(app, "POST", `/api/v1/sessions/${waiting}/execute`, {
        token: alice.token,
        headers: { "x-router-provider-openai-api-key": "sk-test" },
        body: {
          input: { text: "read a.ts" },
          policy: { routing: { default: { model: "openai/gpt-4o-mini" } } },
        },
      });
      assert.equal(paused.body.status, "awaiting_tool");
      callId = paused.body.data.tool_requests[0].call_id;
    });

    after(async () => {
      await app.close();
      await openai.close();
      await dispose();
    });

    /** Known values where the service checks them before it would store anything. */
    function fill(body: Json): Json {
      const text = JSON.stringify(body).replaceAll('"some text"', '"x"');
      const filled = JSON.parse(text);
      for (const r of filled?.data?.results ?? []) r.call_id = callId;
      return filled;
    }

    for (const op of bodyOperations()) {
      test(`${op.method} ${op.template}: every string and key, poisoned, is refused naming it`, async () => {
        const before = await dumpDatabase(app.db);
        const path = op.template.replace(
          "{session_id}",
          op.template.includes("/continue") ? waiting : plain,
        ).replace("{name}", "p").replace("{user_id}", alice.userId);
        let turn = 0;
        let sent = 0;
        for (const body of samples(op.schema).map(fill)) {
          for (const site of sites(body)) {
            for (const bad of HOSTILE) {
              const poisoned = site.put(poison(bad, turn++));
              const r = await call(app, op.method, path, {
                token: tokenFor(path, alice),
                body: poisoned.body,
                headers: { "x-router-provider-openai-api-key": "sk-test" },
              });
              const where = `${site.field} with U+${bad.charCodeAt(0).toString(16)}`;
              assert.ok(r.status < 500, `${where}: ${r.status} ${JSON.stringify(r.body)}`);
              assertRefusedNaming(r, op.template, poisoned.path, where);
              sent++;
            }
          }
        }
        assert.ok(sent >= 3, "the schema gave strings to poison");
        assert.equal(await dumpDatabase(app.db), before, "nothing stored changed");
      });
    }

    for (const { template, names } of queryOperations()) {
      test(`GET ${template}: a NUL in any query parameter is a 400 naming it`, async () => {
        const before = await dumpDatabase(app.db);
        const path = template.replace("{session_id}", plain);
        const token = tokenFor(path, alice);
        for (const name of names) {
          for (const value of ["%00", "a%00b", "%ED%A0%80"]) {
            const r = await call(app, "GET", `${path}?${name}=${value}`, { token });
            assert.ok(r.status < 500, `${name}=${value}: ${r.status}`);
            if (value.includes("%00")) {
              assert.equal(r.status, 400, `${name}=${value}`);
              assert.equal(pathOf(path, r.body), `query.${name}`);
            }
          }
        }
        const r = await call(app, "GET", `${path}?x%00y=1`, { token });
        assert.equal(r.status, 400);
        assert.equal(pathOf(path, r.body), 'query["x\\u0000y"]');
        assert.equal(await dumpDatabase(app.db), before, "nothing stored changed");
      });
    }

    test("text with paired surrogates and escaped backslashes is stored faithfully", async () => {
      const title = "emoji \ud83d\ude00, a literal \\u0000 and \\ud800";
      const r = await call(app, "PUT", `/api/v1/sessions/${plain}`, {
        token: alice.token,
        body: { title },
      });
      assert.equal(r.status, 200);
      const read = await call(app, "GET", `/api/v1/sessions/${plain}`, { token: alice.token });
      assert.equal(read.body.session.title, title);
    });
  });
}
