import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { batchedLines, memoryLogger, redactString } from "../../src/log.ts";

describe("logger", () => {
  test("redacts credential-named fields and credential-shaped values", () => {
    const log = memoryLogger();
    const apiKey = `sk-router-api01-${"a".repeat(32)}-${"Z".repeat(64)}`;
    const token = `${"b".repeat(32)}-${"c".repeat(64)}`;
    log.info("x", {
      authorization: "Bearer whatever",
      "x-router-provider-openai-api-key": "k",
      nested: { note: `key ${apiKey} and ${token}`, list: ["sk-proj-TEST-fake-key-0000"] },
      url: "postgres://user:hunter2@db:5432/app",
      path: "/api/v1/sessions",
    });
    const line = JSON.parse(log.lines[0]);
    assert.equal(line.authorization, "[redacted]");
    assert.equal(line["x-router-provider-openai-api-key"], "[redacted]");
    assert.equal(line.nested.note, "key [redacted] and [redacted]");
    assert.deepEqual(line.nested.list, ["[redacted]"]);
    assert.equal(line.url, "postgres://user:[redacted]@db:5432/app");
    assert.equal(line.path, "/api/v1/sessions");
    for (const secret of [apiKey, token, "hunter2", "whatever", "TEST-fake-key-0000"]) {
      assert.equal(log.lines[0].includes(secret), false, secret);
    }
  });

  test("leaves ordinary text alone", () => {
    assert.equal(redactString("GET /status 200"), "GET /status 200");
  });

  test("lines logged in one burst are written together, in order, once it yields", async () => {
    const writes: string[] = [];
    const lines = batchedLines((text) => writes.push(text));
    lines.write("a");
    lines.write("b");
    assert.deepEqual(writes, [], "nothing is written while the burst runs");
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.deepEqual(writes, ["a\nb"]);
    lines.write("c");
    lines.flush();
    assert.deepEqual(writes, ["a\nb", "c"], "flush writes what waits at once");
    await new Promise((resolve) => setTimeout(resolve, 0));
    lines.flush();
    assert.equal(writes.length, 2, "nothing is written twice, nor an empty write");
  });
});
