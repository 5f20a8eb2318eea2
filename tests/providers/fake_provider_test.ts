import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeProvider } from "../support/fake_provider.ts";

test("fake provider answers queued responses in order and records every request", async () => {
  const fake = await startFakeProvider();
  try {
    fake.enqueue({ status: 200, headers: { "content-type": "application/json" }, body: { n: 1 } });
    fake.enqueue({ status: 200, chunks: ["a", "b"], chunk_delay_ms: 5 });
    const first = await fetch(`${fake.url}/v1/x?q=1`, {
      method: "POST",
      headers: { "X-Api-Key": "k" },
      body: '{"hello":true}',
    });
    assert.equal(first.status, 200);
    assert.deepEqual(await first.json(), { n: 1 });
    const second = await fetch(`${fake.url}/other`);
    assert.equal(await second.text(), "ab");
    const empty = await fetch(`${fake.url}/third`);
    assert.equal(empty.status, 404);
    assert.equal(empty.headers.get("content-type"), "application/json");
    assert.ok(typeof (await empty.json()).error.message === "string");

    assert.equal(fake.requests.length, 3);
    assert.equal(fake.requests[0].method, "POST");
    assert.equal(fake.requests[0].path, "/v1/x?q=1");
    assert.equal(fake.requests[0].headers["x-api-key"], "k");
    assert.deepEqual(fake.requests[0].json, { hello: true });
    assert.equal(fake.requests[1].body, "");
    assert.equal(fake.requests[1].json, undefined);
  } finally {
    await fake.close();
  }
});

test("fake provider cuts the connection when asked", async () => {
  const fake = await startFakeProvider();
  try {
    fake.enqueue({
      status: 200,
      headers: { "content-type": "text/plain" },
      chunks: ["x"],
      cut: true,
    });
    const response = await fetch(fake.url);
    await assert.rejects(response.text());
  } finally {
    await fake.close();
  }
});
