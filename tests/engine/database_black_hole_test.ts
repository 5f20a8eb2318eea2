/**
 * PostgreSQL behind something that accepts connections and then never answers
 * (a stalled host, a path that drops packets), through a TCP proxy in black-hole
 * mode: every endpoint that needs the database answers 502 `storage_error`
 * within the statement deadline plus a second, the ones that do not keep
 * answering, and once the path is back everything works again without a
 * restart: requests, the turn watcher's poll, the instance's heartbeat and the
 * supersede listener. The connections the black hole swallowed stay stalled
 * for ever, so only fresh ones can serve. PostgreSQL only (PGlite is in
 * process: nothing between the service and it can stall).
 */
import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import postgres from "postgres";
import type { ServiceError } from "../../src/core/errors.ts";
import { createTurnWatcher } from "../../src/engine/turn_watch.ts";
import { ROUTES } from "../../src/http/routes.ts";
import { type InstanceLife, startInstance } from "../../src/instance_life.ts";
import { memoryLogger } from "../../src/log.ts";
import type { Db } from "../../src/store/db.ts";
import { openPostgres } from "../../src/store/postgres_driver.ts";
import { openSupersedeSignals, type SupersedeSignals } from "../../src/store/supersede_signal.ts";
import {
  type Account,
  call,
  type CallOptions,
  type CallResult,
  signUp,
  type TestApp,
} from "../support/app.ts";
import {
  assertListenerHears,
  assertStorageError,
  untilAnswered,
} from "../support/database_outage.ts";
import { createScratchDatabase, type ScratchDatabase } from "../support/databases.ts";
import { createEngineApp, openAiReply, openAiStream, openStream } from "../support/engine_app.ts";
import { type FakeProvider, startFakeProvider } from "../support/fake_provider.ts";
import { startTcpProxyFor, type TcpProxy } from "../support/tcp_proxy.ts";

/** Short, so the test is; long enough that no healthy statement comes near it on a busy machine. */
const DEADLINE_MS = 1_000;
/** What the issue asks of every request that needs the database. */
const ANSWERED_WITHIN_MS = DEADLINE_MS + 1_000;

const KEY = { "x-router-provider-openai-api-key": "sk-test-openai" };
const policy = {
  routing: { default: { model: "openai/gpt-4o-mini" }, rules: [] },
  privacy: { remote: { mode: "allow" } },
};
const turn = (text: string) => ({ input: { text }, policy });

/** Routes that answer without the database: they must keep answering, and promptly. */
const WITHOUT_DATABASE = new Set([
  "GET /status",
  "GET /metrics",
  "GET /api/v1/openapi.json",
  "GET /console",
  "GET /console/:file",
  "GET /docs",
  "GET /docs/:file",
]);

const OPERATOR = "operator-token-of-the-black-hole-test";

/** The storage error in the shape of the route's API: native, OpenAI's or Anthropic's. */
function assertStorageErrorOf(route: string, result: CallResult) {
  // The compatible APIs answer it with their own 500 (decisions.md §12).
  const status = route.includes(" /v1/") ? 500 : 502;
  assert.equal(result.status, status, `${route}: ${JSON.stringify(result.body)}`);
  if (!route.includes(" /v1/")) return assertStorageError(result);
  if (route.startsWith("POST /v1/messages")) {
    assert.equal(result.body.type, "error");
    assert.equal(result.body.error.type, "api_error");
  } else {
    assert.equal(result.body.error.code, "storage_error");
  }
  assert.equal(result.body.error.message, "storage unavailable: try again shortly");
}

/** A request each route would serve if the database answered. */
function requestFor(route: string, a: { account: Account; session: string; doomed: string }) {
  const bearer = { token: a.account.token };
  if (route.includes(" /api/v1/admin/")) {
    const [method, pattern] = route.split(" ");
    const path = pattern.replace(":user_id", a.account.userId);
    return {
      method,
      path,
      options: { token: OPERATOR, ...(method === "GET" ? {} : { body: { name: "n" } }) },
    };
  }
  const options: Record<string, CallOptions> = {
    "POST /api/v1/auth/bootstrap": {},
    "POST /api/v1/auth/sign-in": { headers: { "x-router-api-key": a.account.apiKey } },
    "POST /api/v1/sessions": { ...bearer, body: { title: "t" } },
    "PUT /api/v1/sessions/:session_id": { ...bearer, body: { title: "renamed" } },
    "POST /api/v1/sessions/:session_id/execute": { ...bearer, body: turn("hi"), headers: KEY },
    "POST /api/v1/sessions/:session_id/preview": { ...bearer, body: turn("hi"), headers: KEY },
    "POST /api/v1/sessions/:session_id/continue": { ...bearer, body: { type: "break" } },
    "POST /api/v1/auth/keys": { ...bearer, body: { name: "k" } },
    "PUT /api/v1/policies/:name": { ...bearer, body: {} },
    "POST /v1/chat/completions": {
      ...bearer,
      body: { model: "switchyard", messages: [{ role: "user", content: "hi" }] },
    },
    "POST /v1/messages": {
      ...bearer,
      body: { model: "switchyard", max_tokens: 5, messages: [{ role: "user", content: "hi" }] },
    },
    "POST /v1/messages/count_tokens": {
      ...bearer,
      body: { model: "switchyard", messages: [{ role: "user", content: "hi" }] },
    },
  };
  const [method, pattern] = route.split(" ");
  // The session a DELETE would remove, should it wrongly succeed, is one of its own.
  const session = method === "DELETE" ? a.doomed : a.session;
  const path = pattern.replace(":session_id", session).replace(":file", "index.html")
    .replace(":name", "p").replace(":version", "1").replace(":key_id", a.session)
    .replace(":provider", "openai").replace(":model_id", "gpt-4o-mini");
  return { method, path, options: options[route] ?? bearer };
}

const adminUrl = process.env.DATABASE_URL;
if (adminUrl) {
  describe("PostgreSQL that stops answering", () => {
    let scratch: ScratchDatabase;
    let proxy: TcpProxy;
    let openai: FakeProvider;
    let db: Db;
    let signals: SupersedeSignals;
    let app: TestApp;
    let alice: Account;
    let life: InstanceLife | undefined;
    const instance = crypto.randomUUID();

    before(async () => {
      scratch = await createScratchDatabase(adminUrl);
      proxy = await startTcpProxyFor(scratch.url);
      openai = await startFakeProvider();
      const url = proxy.proxied(scratch.url);
      db = openPostgres(url, { maxConnections: 4, statementTimeoutMs: DEADLINE_MS });
      signals = await openSupersedeSignals(url, { statementTimeoutMs: DEADLINE_MS });
      app = await createEngineApp({
        openai: openai.url,
        ollama: "http://127.0.0.1:9",
        db,
        signals,
        configure: (c) => void (c.auth.operatorToken = OPERATOR),
      });
      alice = await signUp(app);
    });
    after(async () => {
      await life?.drain(0).catch(() => {});
      await proxy?.close();
      await signals?.close();
      await db?.close();
      await openai?.close();
      await scratch?.drop();
    });

    const newSession = async () =>
      (await call(app, "POST", "/api/v1/sessions", { token: alice.token, body: { title: "t" } }))
        .body.session.id as string;
    const timed = async (request: Promise<CallResult>) => {
      const started = performance.now();
      const result = await request;
      return { result, ms: performance.now() - started };
    };

    test("every endpoint answers within the deadline while the database is a black hole, and all work once it is back", async () => {
      const session = await newSession();
      const doomed = await newSession();
      openai.enqueue(openAiReply({ text: "before" }));
      const first = await call(app, "POST", `/api/v1/sessions/${session}/execute`, {
        token: alice.token,
        body: turn("hello"),
        headers: KEY,
      });
      assert.equal(first.body.status, "completed");
      const watcher = createTurnWatcher({ db, signals, now: () => new Date() });
      const logger = memoryLogger();
      life = await startInstance({
        db,
        instance,
        sole: false,
        watcher,
        now: () => new Date(),
        logger,
      });

      // A compatible turn with the API key itself as bearer: once this instance has verified the
      // key, its later turns check it in their one read instead of reading it first.
      const byKey = {
        token: alice.apiKey,
        headers: KEY,
        body: { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] },
      };
      openai.enqueue(openAiReply({ text: "hello" }));
      assert.equal((await call(app, "POST", "/v1/chat/completions", byKey)).status, 200);

      // A turn streaming when the database stops answering.
      openai.enqueue(openAiStream(["one ", "two ", "three"], 100));
      const streaming = await openStream(
        app,
        `/api/v1/sessions/${await newSession()}/execute`,
        alice.token,
        turn("count"),
        KEY,
      );
      await streaming.until("text_delta");

      proxy.blackHole();
      const holeOpened = performance.now();
      // A turn the watcher guards through the black hole. Its run does not exist, so the first
      // poll that is answered supersedes it: only a poll that never returns would keep it alive.
      const guarded = watcher.guard({
        runId: crypto.randomUUID(),
        turnId: crypto.randomUUID(),
        seq: 0,
      });

      // Every route at once, each timed on its own.
      const routes = ROUTES.map((r) => `${r.method} ${r.path}`);
      const answers = await Promise.all([
        ...routes.map(async (route) => {
          const r = requestFor(route, { account: alice, session, doomed });
          return { route, ...await timed(call(app, r.method, r.path, r.options)) };
        }),
        (async () => ({
          route: "POST /v1/chat/completions (API key)",
          ...await timed(call(app, "POST", "/v1/chat/completions", byKey)),
        }))(),
      ]);
      for (const { route, result, ms } of answers) {
        assert.ok(ms < ANSWERED_WITHIN_MS, `${route} answered after ${Math.round(ms)} ms`);
        if (WITHOUT_DATABASE.has(route)) {
          assert.ok(result.status < 500, `${route}: ${result.status}`);
        } else {
          assertStorageErrorOf(route, result);
        }
      }
      // And one more after the pool was replaced: its fresh connections fall in the hole too.
      const again = await timed(call(app, "GET", "/api/v1/sessions", { token: alice.token }));
      assert.ok(again.ms < ANSWERED_WITHIN_MS, `answered after ${Math.round(again.ms)} ms`);
      assertStorageError(again.result);
      // A transaction, whose BEGIN postgres.js sends itself, is given up on as well.
      const started = performance.now();
      await assert.rejects(
        db.transaction((tx) => tx.query("SELECT 1")),
        (error: ServiceError) => error.failure.code === "storage_error",
      );
      assert.ok(performance.now() - started < ANSWERED_WITHIN_MS, "the transaction hung");

      const ended = (await streaming.until("turn_end")).at(-1);
      assert.equal(ended.type, "turn_end");
      assert.equal(ended.status, "error");
      assert.equal(ended.data.error.code, "storage_error");
      assert.ok(
        performance.now() - holeOpened < 3 * ANSWERED_WITHIN_MS,
        "the streaming turn took too long to end",
      );
      assert.equal(guarded.signal.aborted, false);
      // The heartbeat gives up on its statement too, rather than waiting for ever.
      while (!logger.lines.some((l) => l.includes("heartbeat failed"))) {
        assert.ok(
          performance.now() - holeOpened < 1_000 + ANSWERED_WITHIN_MS + 1_000,
          "the heartbeat never gave up",
        );
        await new Promise((resolve) => setTimeout(resolve, 50));
      }

      await proxy.restore();
      const back = new Date();
      await untilAnswered(() => call(app, "GET", "/api/v1/sessions", { token: alice.token }));
      const bob = await signUp(app);
      assert.equal((await call(app, "GET", "/api/v1/auth/me", { token: bob.token })).status, 200);
      openai.enqueue(openAiReply({ text: "after" }));
      const done = await call(app, "POST", `/api/v1/sessions/${session}/execute`, {
        token: alice.token,
        body: turn("hello again"),
        headers: KEY,
      });
      assert.equal(done.status, 200);
      assert.equal(done.body.data.message.content, "after");

      // The watcher polls again: the guarded turn is let go.
      const since = performance.now();
      while (!guarded.signal.aborted) {
        assert.ok(performance.now() - since < 10_000, "the turn watcher never polled again");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      guarded.stop();
      // The heartbeat beats again.
      const direct = postgres(scratch.url, { max: 1, onnotice: () => {} });
      try {
        for (;;) {
          const [row] = await direct<{ heartbeat_at: Date }[]>`
            SELECT heartbeat_at FROM instances WHERE id = ${instance}`;
          if (row !== undefined && row.heartbeat_at >= back) break;
          assert.ok(performance.now() - since < 10_000, "the heartbeat never beat again");
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      } finally {
        await direct.end();
      }
      // The listener, whose connection the black hole swallowed, hears again.
      await assertListenerHears(signals, scratch.url);
    });

    test("a statement that runs too long on a live server is cancelled by the server, and its connection kept", async () => {
      // Straight to the database: the server is alive, only slow.
      const slow = openPostgres(scratch.url, { maxConnections: 1, statementTimeoutMs: 2_000 });
      try {
        const pid = async () =>
          (await slow.query<{ pid: number }>("SELECT pg_backend_pid() AS pid"))[0].pid;
        const before = await pid();
        const started = performance.now();
        await assert.rejects(
          slow.query("SELECT pg_sleep(30)"),
          (error: ServiceError) => error.failure.code === "storage_error",
        );
        const ms = performance.now() - started;
        assert.ok(ms >= 2_000 && ms < 2_000 + 1_000, `cancelled after ${Math.round(ms)} ms`);
        // The server cancelled it (57014) before the client gave up: the same connection serves on.
        assert.equal(await pid(), before);
      } finally {
        await slow.close();
      }
    });
  });
}
