/**
 * A session deleted while one of its turns runs (the delete is never refused:
 * interface.md gives it no 409). The running request is answered 404
 * `session_not_found` saying the session was deleted while the turn ran, in
 * its surface's shape: JSON before a stream started, the stream's last event
 * after (the native `turn_end`, a compatible API's error event); never 500,
 * never `idle` or a `turn_interrupted` that would name a break nobody sent.
 * Nothing of the turn is left behind in the store, and the call's cost still
 * reaches the budget ledger, which outlives sessions. The provider is a fake
 * that answers slowly; the official SDKs meet the compatible answers.
 */
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { setUserBudget } from "../../src/store/budgets.ts";
import type { Db } from "../../src/store/db.ts";
import { type Account, call, signUp, type TestApp } from "../support/app.ts";
import { checkedFetch } from "../support/compat_fetch.ts";
import { storesUnderTest } from "../support/databases.ts";
import {
  callStream,
  createEngineApp,
  openAiReply,
  openAiStream,
  openAiStreamStalledAfterFirstContent,
  openStream,
} from "../support/engine_app.ts";
import {
  type FakeProvider,
  type FixtureResponse,
  startFakeProvider,
} from "../support/fake_provider.ts";
import { sealingClient } from "../support/sealing_client.ts";

const KEY = { "x-router-provider-openai-api-key": "sk-test-openai" };
const POLICY = {
  routing: { default: { model: "openai/gpt-4o-mini", fallbacks: [] }, rules: [] },
  privacy: { remote: { mode: "allow" } },
};
const DELETED = /the session was deleted while this turn ran/;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Far longer than any test: the delete, not the provider, ends the turn. */
const SLOW: FixtureResponse = { ...openAiReply({ text: "too late" }), delay_ms: 5_000 };

// deno-lint-ignore no-explicit-any
type Body = any;

for (const store of storesUnderTest(process.env)) {
  describe(`a session deleted under its running turn, on ${store.name}`, () => {
    let app: TestApp;
    let openai: FakeProvider;
    let alice: Account;
    let opened: Awaited<ReturnType<typeof store.open>>;
    let db: Db;
    before(async () => {
      opened = await store.open();
      db = opened.db;
      openai = await startFakeProvider();
      app = await createEngineApp({ openai: openai.url, ollama: "http://127.0.0.1:9", db });
      alice = await signUp(app);
      // A budget, so each call is reserved in the ledger and must be settled there.
      await setUserBudget(db, alice.userId, { daily: "100", monthly: null }, app.clock.now());
      const stored = await call(app, "PUT", "/api/v1/policies/default", {
        token: alice.token,
        body: POLICY,
      });
      assert.ok(stored.status < 300, JSON.stringify(stored.body));
    });
    after(async () => {
      await app.close();
      await openai.close();
      await opened.dispose();
    });
    beforeEach(() => {
      openai.requests.length = 0;
    });

    async function newSession(): Promise<string> {
      const r = await call(app, "POST", "/api/v1/sessions", {
        token: alice.token,
        body: { title: "doomed" },
      });
      return r.body.session.id;
    }

    async function waitForCall(): Promise<void> {
      for (let waited = 0; openai.requests.length === 0; waited += 5) {
        assert.ok(waited < 10_000, "the provider was never called");
        await sleep(5);
      }
    }

    async function deleteSession(session: string): Promise<void> {
      const r = await call(app, "DELETE", `/api/v1/sessions/${session}`, { token: alice.token });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(r.body, { deleted: true });
    }

    /** Once the provider has the turn's call (and `delayMs` more), the user deletes the session. */
    async function deleteWhenCalled(session: string, delayMs = 0): Promise<void> {
      await waitForCall();
      await sleep(delayMs);
      await deleteSession(session);
    }

    /** The ledger's spent calls and unsettled reservations of alice. */
    async function ledger(): Promise<{ spent: number; unsettled: number }> {
      const rows = await db.query<{ spent: number; unsettled: number }>(
        `SELECT count(*) FILTER (WHERE spent)::int AS spent,
                count(*) FILTER (WHERE NOT spent)::int AS unsettled
         FROM budget_ledger WHERE user_id = $1`,
        [alice.userId],
      );
      return rows[0];
    }

    /**
     * After the turn: the session is gone with everything it held, nothing of the turn was
     * written after the delete, the call counts once as spent, and the user's next turn runs.
     */
    async function assertNothingLeft(session: string, before: { spent: number }) {
      const got = await call(app, "GET", `/api/v1/sessions/${session}`, { token: alice.token });
      assert.equal(got.status, 404, JSON.stringify(got.body));
      for (const table of ["messages", "trace_events", "usage_events", "runs", "responses"]) {
        const rows = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM ${table} WHERE session_id = $1`,
          [session],
        );
        assert.equal(rows[0].n, 0, `${table} still names the deleted session`);
      }
      assert.deepEqual(await ledger(), { spent: before.spent + 1, unsettled: 0 });
      const next = await newSession();
      openai.enqueue(openAiReply({ text: "fresh" }));
      const r = await call(app, "POST", `/api/v1/sessions/${next}/execute`, {
        token: alice.token,
        body: { input: { text: "again" }, policy: POLICY },
        headers: KEY,
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.status, "completed");
    }

    // The delete found by the turn's watcher mid-call, or (likely with a short call) by the
    // turn's own end, whose write finds no session.
    for (const [how, providerMs] of [["a long call", 5_000], ["a short call", 100]] as const) {
      test(`native execute, buffered, deleted during ${how}: 404 session_not_found`, async () => {
        const session = await newSession();
        const before = await ledger();
        openai.enqueue({ ...openAiReply({ text: "into the void" }), delay_ms: providerMs });
        const asked = call(app, "POST", `/api/v1/sessions/${session}/execute`, {
          token: alice.token,
          body: { input: { text: "hello" }, policy: POLICY },
          headers: KEY,
        });
        await deleteWhenCalled(session);
        const r = await asked;
        assert.equal(r.status, 404, JSON.stringify(r.body));
        assert.equal(r.body.error.code, "session_not_found");
        assert.match(r.body.error.message, DELETED);
        await assertNothingLeft(session, before);
      });
    }

    test("native execute in an encrypted session, buffered: 404 session_not_found", async () => {
      // An encrypted session writes each record at once, not with the turn's end.
      const client = await sealingClient("key-doomed");
      const created = await call(app, "POST", "/api/v1/sessions", {
        token: alice.token,
        body: { title: "sealed", key_id: client.keyId },
      });
      const session = created.body.session.id as string;
      const before = await ledger();
      openai.enqueue(SLOW);
      const asked = call(app, "POST", `/api/v1/sessions/${session}/execute`, {
        token: alice.token,
        body: { input: { text: "hello", ciphertext: await client.seal("hello") }, policy: POLICY },
        headers: KEY,
      });
      await deleteWhenCalled(session);
      const r = await asked;
      assert.equal(r.status, 404, JSON.stringify(r.body));
      assert.equal(r.body.error.code, "session_not_found");
      assert.match(r.body.error.message, DELETED);
      await assertNothingLeft(session, before);
    });

    test("native execute, streamed, deleted before the first content: turn_end error session_not_found", async () => {
      const session = await newSession();
      const before = await ledger();
      openai.enqueue({ ...openAiStream(["too", " late"]), delay_ms: 5_000 });
      const asked = callStream(app, `/api/v1/sessions/${session}/execute`, alice.token, {
        input: { text: "hello" },
        policy: POLICY,
      }, KEY);
      await deleteWhenCalled(session);
      const r = await asked;
      // The native stream opens with its model call: the delete ends it with its turn_end, after
      // the usage of the call it cut.
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(r.events.map((e) => e.type), ["usage", "turn_end"]);
      const end = r.events[1];
      assert.equal(end.status, "error");
      assert.equal(end.data.error.code, "session_not_found");
      assert.match(end.data.error.message, DELETED);
      await assertNothingLeft(session, before);
    });

    test("native execute, streamed, deleted after the first content: turn_end error session_not_found", async () => {
      const session = await newSession();
      const before = await ledger();
      openai.enqueue(openAiStreamStalledAfterFirstContent());
      const stream = await openStream(app, `/api/v1/sessions/${session}/execute`, alice.token, {
        input: { text: "hello" },
        policy: POLICY,
      }, KEY);
      const first = await stream.until("text_delta");
      assert.equal(first.find((e) => e.type === "text_delta").delta, "Hel");
      await deleteSession(session);
      const events = await stream.until("turn_end");
      const end = events.at(-1);
      assert.equal(end.type, "turn_end", JSON.stringify(events));
      assert.equal(end.status, "error");
      assert.equal(end.data.error.code, "session_not_found");
      assert.match(end.data.error.message, DELETED);
      await assertNothingLeft(session, before);
    });

    const openaiClient = (session: string) =>
      new OpenAI({
        apiKey: alice.apiKey,
        baseURL: "http://switchyard.test/v1",
        defaultHeaders: { ...KEY, "x-router-session-id": session },
        maxRetries: 0,
        fetch: checkedFetch(() => app),
      });

    test("chat completions, buffered: NotFoundError session_not_found with the session", async () => {
      const session = await newSession();
      const before = await ledger();
      openai.enqueue(SLOW);
      const asked = openaiClient(session).chat.completions.create({
        model: "switchyard",
        messages: [{ role: "user", content: "hello" }],
      }).then(() => assert.fail("answered"), (e: unknown) => e);
      await deleteWhenCalled(session);
      const e = await asked;
      assert.ok(e instanceof OpenAI.NotFoundError, String(e));
      assert.equal((e.error as Body).code, "session_not_found");
      assert.match((e.error as Body).message, DELETED);
      assert.equal(e.headers?.get("x-router-session-id"), session);
      await assertNothingLeft(session, before);
    });

    test("chat completions, streamed after content: an error chunk naming the delete", async () => {
      const session = await newSession();
      const before = await ledger();
      openai.enqueue(openAiStreamStalledAfterFirstContent());
      const client = new OpenAI({
        apiKey: alice.apiKey,
        baseURL: "http://switchyard.test/v1",
        defaultHeaders: { ...KEY, "x-router-session-id": session },
        maxRetries: 0,
        fetch: (url, init) => app.handler(new Request(url, init)),
      });
      const { data: stream, response } = await client.chat.completions.create({
        model: "switchyard",
        messages: [{ role: "user", content: "hello" }],
        stream: true,
      }).withResponse();
      assert.equal(response.status, 200);
      let text = "";
      const read = (async () => {
        for await (const chunk of stream) {
          text += chunk.choices[0]?.delta.content ?? "";
          if (text === "Hel") await deleteSession(session);
        }
      })();
      await assert.rejects(read, (e: unknown) => {
        assert.ok(e instanceof OpenAI.APIError, String(e));
        assert.equal((e.error as Body).code, "session_not_found");
        assert.match(e.message, DELETED);
        return true;
      });
      assert.equal(text, "Hel");
      await assertNothingLeft(session, before);
    });

    test("responses, buffered: NotFoundError session_not_found", async () => {
      const session = await newSession();
      const before = await ledger();
      openai.enqueue(SLOW);
      const asked = openaiClient(session).responses.create({
        model: "switchyard",
        input: "hello",
      }).then(() => assert.fail("answered"), (e: unknown) => e);
      await deleteWhenCalled(session);
      const e = await asked;
      assert.ok(e instanceof OpenAI.NotFoundError, String(e));
      assert.equal((e.error as Body).code, "session_not_found");
      assert.match((e.error as Body).message, DELETED);
      await assertNothingLeft(session, before);
    });

    for (const stream of [false, true]) {
      test(`messages, ${stream ? "streamed before content" : "buffered"}: NotFoundError in Anthropic's shape`, async () => {
        const session = await newSession();
        const before = await ledger();
        openai.enqueue(SLOW);
        const client = new Anthropic({
          apiKey: alice.apiKey,
          baseURL: "http://switchyard.test",
          defaultHeaders: { ...KEY, "x-router-session-id": session },
          maxRetries: 0,
          fetch: checkedFetch(() => app),
        });
        const body = {
          model: "switchyard",
          max_tokens: 64,
          messages: [{ role: "user" as const, content: "hello" }],
        };
        const asked =
          (stream ? client.messages.stream(body).finalMessage() : client.messages.create(body))
            .then(() => assert.fail("answered"), (e: unknown) => e);
        await deleteWhenCalled(session);
        const e = await asked;
        assert.ok(e instanceof Anthropic.NotFoundError, String(e));
        const error = e.error as Body;
        assert.equal(error.type, "error");
        assert.equal(error.error.type, "not_found_error");
        assert.match(error.error.message, DELETED);
        await assertNothingLeft(session, before);
      });
    }
  });
}
