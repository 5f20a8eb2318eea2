/**
 * PostgreSQL going away under load, through a TCP proxy the test cuts and
 * restores: requests that need the database answer 502 `storage_error`
 * promptly (never a hang, never a 500), a turn cut mid-stream ends with a
 * `turn_end` of status error, and once the database is back every endpoint
 * works again without restarting anything. PGlite is embedded (no connection
 * to lose), so these suites run on PostgreSQL only.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import postgres from "postgres";
import type { Db } from "../../src/store/db.ts";
import { openPostgres } from "../../src/store/postgres_driver.ts";
import { openSupersedeSignals, type SupersedeSignals } from "../../src/store/supersede_signal.ts";
import { type Account, call, type CallResult, signUp, type TestApp } from "../support/app.ts";
import {
  assertListenerHears,
  assertStorageError,
  untilAnswered,
} from "../support/database_outage.ts";
import { createScratchDatabase, type ScratchDatabase } from "../support/databases.ts";
import { createEngineApp, openAiReply, openAiStream, openStream } from "../support/engine_app.ts";
import { type FakeProvider, startFakeProvider } from "../support/fake_provider.ts";
import { startTcpProxyFor, type TcpProxy } from "../support/tcp_proxy.ts";

const KEY = { "x-router-provider-openai-api-key": "sk-test-openai" };
const policy = {
  routing: { default: { model: "openai/gpt-4o-mini" }, rules: [] },
  privacy: { remote: { mode: "allow" } },
};
const turn = (text: string) => ({ input: { text }, policy });
/** postgres.js gives up connecting after 5 s (postgres_driver.ts); a little slack on a busy machine. */
const PROMPT_MS = 8_000;

const adminUrl = process.env.DATABASE_URL;
if (adminUrl) {
  describe("PostgreSQL outage", () => {
    let scratch: ScratchDatabase;
    let proxy: TcpProxy;
    let openai: FakeProvider;
    let db: Db;
    let signals: SupersedeSignals;
    let app: TestApp;
    let alice: Account;

    before(async () => {
      scratch = await createScratchDatabase(adminUrl);
      proxy = await startTcpProxyFor(scratch.url);
      openai = await startFakeProvider();
      db = openPostgres(proxy.proxied(scratch.url), { maxConnections: 4 });
      signals = await openSupersedeSignals(proxy.proxied(scratch.url));
      app = await createEngineApp({
        openai: openai.url,
        ollama: "http://127.0.0.1:9",
        db,
        signals,
        // Requests are retried every 50 ms until the store answers: the per-user rate limit is
        // another test's subject.
        configure: (config) => void (config.limits.rate.enabled = false),
      });
      alice = await signUp(app);
    });
    // Whatever `before` got to open (it may have failed half-way) is closed.
    after(async () => {
      await proxy?.close();
      await signals?.close();
      await db?.close();
      await openai?.close();
      await scratch?.drop();
    });

    const newSession = async () =>
      (await call(app, "POST", "/api/v1/sessions", {
        token: alice.token,
        body: { title: "t" },
      }))
        .body.session.id as string;
    const execute = (id: string, text: string) =>
      call(app, "POST", `/api/v1/sessions/${id}/execute`, {
        token: alice.token,
        body: turn(text),
        headers: KEY,
      });

    /** The answer, and that it came promptly. */
    async function prompt(request: Promise<CallResult>): Promise<CallResult> {
      const started = performance.now();
      const result = await request;
      const ms = performance.now() - started;
      assert.ok(ms < PROMPT_MS, `answered after ${Math.round(ms)} ms`);
      return result;
    }

    test("requests answer storage_error while the database is cut, and all work once it is back", async () => {
      const before = await newSession();
      openai.enqueue(openAiReply({ text: "before the outage" }));
      assert.equal((await execute(before, "hello")).body.status, "completed");

      // Steady load from the start: every answer is a 200 or a storage_error, never a 500. It
      // stops with the test, however the test ends, and waits a macrotask between requests: a
      // failed query can answer within microtasks, and a loop of those would starve every timer.
      let loading = true;
      const seen = new Map<string, number>();
      const load = Promise.all(Array.from({ length: 4 }, async () => {
        while (loading) {
          const r = await call(app, "GET", "/api/v1/sessions", {
            token: alice.token,
          })
            .catch((error) => ({
              status: "threw",
              body: { error: { code: error?.code } },
            }));
          const key = `${r.status} ${r.body?.error?.code ?? ""}`.trim();
          seen.set(key, (seen.get(key) ?? 0) + 1);
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
      }));
      try {
        // A turn streaming when the database goes: it ends, with an error turn_end.
        openai.enqueue(openAiStream(["one ", "two ", "three ", "four"], 150));
        const cutTurn = await newSession();
        const stream = await openStream(
          app,
          `/api/v1/sessions/${cutTurn}/execute`,
          alice.token,
          turn("count"),
          KEY,
        );
        await stream.until("text_delta");
        await proxy.cut();

        assert.deepEqual(
          (await prompt(call(app, "GET", "/status"))).status,
          200,
        );
        assertStorageError(
          await prompt(
            call(app, "GET", "/api/v1/sessions", { token: alice.token }),
          ),
        );
        assertStorageError(
          await prompt(call(app, "POST", "/api/v1/auth/bootstrap")),
        );
        assertStorageError(
          await prompt(call(app, "POST", "/api/v1/auth/sign-in", {
            headers: { "x-router-api-key": alice.apiKey },
          })),
        );
        assertStorageError(await prompt(execute(before, "during the outage")));
        assertStorageError(
          await prompt(
            call(app, "GET", `/api/v1/sessions/${before}/traces`, {
              token: alice.token,
            }),
          ),
        );
        const ended = (await stream.until("turn_end")).at(-1);
        assert.equal(ended.type, "turn_end");
        assert.equal(ended.status, "error");
        assert.equal(ended.data.error.code, "storage_error");

        await proxy.restore();
        // Back without a restart. A connection attempt begun during the cut may still be refused
        // just after, once per pooled connection: within a second or so (postgres.js waits at
        // most 0.5 s between attempts) requests are answered again, as many in a row as the pool
        // has connections and more.
        await untilAnswered(() => call(app, "GET", "/api/v1/sessions", { token: alice.token }));
        // Then reads, writes, sign-up, sign-in and a whole turn.
        const bob = await signUp(app);
        assert.equal(
          (await call(app, "GET", "/api/v1/auth/me", { token: bob.token }))
            .status,
          200,
        );
        const after = await newSession();
        openai.enqueue(openAiReply({ text: "after the outage" }));
        const done = await execute(after, "hello again");
        assert.equal(done.status, 200);
        assert.equal(done.body.data.message.content, "after the outage");
        openai.enqueue(openAiReply({ text: "same session again" }));
        assert.equal(
          (await execute(before, "and again")).body.status,
          "completed",
        );
        await assertListenerHears(signals, scratch.url);
        const detail = await call(app, "GET", `/api/v1/sessions/${before}`, {
          token: alice.token,
        });
        assert.equal(detail.status, 200);
        assert.equal(detail.body.session.messages.length, 4);
        for (const path of ["traces", "usage"]) {
          const r = await call(
            app,
            "GET",
            `/api/v1/sessions/${before}/${path}`,
            {
              token: alice.token,
            },
          );
          assert.equal(r.status, 200);
        }
      } finally {
        loading = false;
        await load;
      }
      assert.deepEqual([...seen.keys()].sort(), ["200", "502 storage_error"]);
    });

    test("connections the server terminates, as a restart does, are replaced by themselves", async () => {
      const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
      try {
        const name = new URL(scratch.url).pathname.slice(1);
        const killed = await admin.unsafe(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1",
          [name],
        );
        assert.ok(killed.length > 0);
        // A request may still meet a dying pooled connection before its close is noticed: it
        // answers storage_error; then every request is answered. Each of the pool's 4 may fail
        // once, and once more when it was reopened while the server was still terminating.
        const list = () => call(app, "GET", "/api/v1/sessions", { token: alice.token });
        let failures = 0;
        for (let r = await list(); r.status !== 200; r = await list()) {
          assert.equal(r.body.error.code, "storage_error");
          assert.ok(++failures <= 8, `${failures} failures`);
        }
        for (let i = 0; i < 20; i++) assert.equal((await list()).status, 200);
        // The supersede listener is back on its channel too.
        await assertListenerHears(signals, scratch.url);
      } finally {
        await admin.end();
      }
    });
  });
}
