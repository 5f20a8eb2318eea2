/**
 * A turn whose claim the database lost while the turn ran (on PostgreSQL a
 * claim commits without waiting for its WAL, so a crash of the server can
 * lose it): its run is not there when the turn ends or its watcher looks.
 * That is no supersede, so it never answers as one (`idle` on the native API,
 * a lone 200 that hides the loss): it answers 502 `storage_error`, in the
 * compatible surface's shape there. The crash is played by deleting the run
 * and the prompt it stored, as the restarted server would not have them; a
 * deleted session, whose runs go with it, is not such a loss.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { call } from "../support/app.ts";
import { checkedFetch } from "../support/compat_fetch.ts";
import { engineHarness, openAiReply } from "../support/engine_app.ts";

const h = engineHarness();
const KEY = { "x-router-provider-openai-api-key": "sk-test-openai" };
const POLICY = {
  routing: { default: { model: "openai/gpt-4o-mini", fallbacks: [] }, rules: [] },
  privacy: { remote: { mode: "allow" } },
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Once the provider has the turn's call, the session's runs and prompt are gone, as after a crash. */
async function loseClaimWhenCalled(session: string, delayMs: number): Promise<void> {
  for (let waited = 0; h.openai.requests.length === 0; waited += 5) {
    assert.ok(waited < 10_000, "the provider was never called");
    await sleep(5);
  }
  await sleep(delayMs);
  const gone = await h.app.db.query<{ id: string }>(
    "DELETE FROM runs WHERE session_id = $1 RETURNING id",
    [session],
  );
  assert.equal(gone.length, 1);
  await h.app.db.query("DELETE FROM messages WHERE session_id = $1", [session]);
}

describe("a turn whose claim the database lost answers 502 storage_error, never idle", () => {
  // Found by the turn's watcher mid-call, or (likely with a short call) by the turn's own end.
  for (const [how, providerMs] of [["a long call", 5_000], ["a short call", 100]] as const) {
    test(`native execute, lost during ${how}`, async () => {
      const session = await h.session();
      h.openai.enqueue({
        ...openAiReply({ text: "answered into the void" }),
        delay_ms: providerMs,
      });
      const asked = call(h.app, "POST", `/api/v1/sessions/${session}/execute`, {
        token: h.alice.token,
        body: { input: { text: "hello" }, policy: POLICY },
        headers: KEY,
      });
      await loseClaimWhenCalled(session, 0);
      const r = await asked;
      assert.equal(r.status, 502, JSON.stringify(r.body));
      assert.equal(r.body.error.code, "storage_error");
      assert.match(r.body.error.message, /lost this turn's claim/);
      // The session takes a turn again at once: nothing holds it.
      h.openai.enqueue(openAiReply({ text: "next" }));
      const next = await call(h.app, "POST", `/api/v1/sessions/${session}/execute`, {
        token: h.alice.token,
        body: { input: { text: "again" }, policy: POLICY },
        headers: KEY,
      });
      assert.equal(next.status, 200, JSON.stringify(next.body));
      assert.equal(next.body.status, "completed");
    });
  }

  test("chat completions: 500 storage_error in OpenAI's shape, with the session and trace", async () => {
    const r = await call(h.app, "PUT", "/api/v1/policies/default", {
      token: h.alice.token,
      body: POLICY,
    });
    assert.ok(r.status === 200 || r.status === 201, JSON.stringify(r.body));
    const session = await h.session();
    h.openai.enqueue({ ...openAiReply({ text: "answered into the void" }), delay_ms: 5_000 });
    const client = new OpenAI({
      apiKey: h.alice.apiKey,
      baseURL: "http://switchyard.test/v1",
      defaultHeaders: { ...KEY, "x-router-session-id": session },
      maxRetries: 0,
      fetch: checkedFetch(() => h.app),
    });
    const asked = client.chat.completions.create({
      model: "switchyard",
      messages: [{ role: "user", content: "hello" }],
    }).then(() => assert.fail("answered"), (e: unknown) => e);
    await loseClaimWhenCalled(session, 0);
    const e = await asked;
    assert.ok(e instanceof OpenAI.InternalServerError, String(e));
    assert.equal((e.error as { code: string }).code, "storage_error");
    assert.equal(e.headers?.get("x-router-session-id"), session);
  });

  test("a session deleted under its turn is not a lost claim", async () => {
    const session = await h.session();
    h.openai.enqueue({ ...openAiReply({ text: "late" }), delay_ms: 5_000 });
    const asked = call(h.app, "POST", `/api/v1/sessions/${session}/execute`, {
      token: h.alice.token,
      body: { input: { text: "hello" }, policy: POLICY },
      headers: KEY,
    });
    for (let waited = 0; h.openai.requests.length === 0; waited += 5) {
      assert.ok(waited < 10_000, "the provider was never called");
      await sleep(5);
    }
    const deleted = await call(h.app, "DELETE", `/api/v1/sessions/${session}`, {
      token: h.alice.token,
    });
    assert.ok(deleted.status === 200 || deleted.status === 204, JSON.stringify(deleted.body));
    const r = await asked;
    // Answered as the deleted session it is (tests/engine/deleted_session_test.ts).
    assert.equal(r.status, 404, JSON.stringify(r.body));
    assert.equal(r.body.error.code, "session_not_found");
    assert.doesNotMatch(JSON.stringify(r.body), /lost this turn's claim/);
  });
});
