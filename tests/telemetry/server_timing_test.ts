/**
 * Every turn's answer names where its time went before its first byte: a
 * `Server-Timing` header of the turn's phases, on the native routes and on
 * the compatible surfaces, buffered and streamed, read by a client over a
 * real socket. Each phase is present and not negative, and together they are
 * no more than the time to first byte the client measured; the same phases are
 * the `switchyard_turn_phase_seconds` histogram on /metrics, by store.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { type Account, call, signUp, type TestApp } from "../support/app.ts";
import { createEngineApp, openAiReply, openAiStream } from "../support/engine_app.ts";
import { type FakeProvider, startFakeProvider } from "../support/fake_provider.ts";
import { delta, scrape } from "../support/prometheus.ts";
import { type Served, serveHandler } from "../support/serve_handler.ts";
import { storesUnderTest } from "../support/databases.ts";
import { PHASES } from "../../src/telemetry/phase_clock.ts";
import { createTelemetry } from "../../src/telemetry/telemetry.ts";

const KEY = {
  "x-router-provider-openai-api-key": "sk-test-server-timing-1234",
};
const POLICY = {
  routing: { default: { model: "openai/gpt-4o-mini" }, rules: [] },
  privacy: { remote: { mode: "allow" } },
};

/** The phases every turn meets before its first byte, buffered (the provider's too) or streamed. */
const BEFORE_STREAM = [
  "auth",
  "parse",
  "catalog",
  "claim",
  "decision",
  "budget",
  "answer",
];
const BUFFERED_ONLY = ["provider_connect", "provider_first_byte", "write"];
/** A compatible surface finds or makes its session by the conversation. */
const COMPAT_ONLY = ["session"];

interface Timed {
  status: number;
  /** From sending the request to its response headers, at the client. */
  ttfbMs: number;
  phases: Map<string, number>;
  text: string;
}

/** `name;dur=1.23, …` as a map; throws on anything else. */
function parseServerTiming(value: string | null): Map<string, number> {
  assert.ok(value !== null, "the answer carries Server-Timing");
  const phases = new Map<string, number>();
  for (const entry of value.split(", ")) {
    const match = /^([a-z_]+);dur=(\d+\.\d\d)$/.exec(entry);
    assert.ok(match, `a Server-Timing entry "${entry}"`);
    assert.ok(!phases.has(match[1]), `${match[1]} once`);
    phases.set(match[1], Number(match[2]));
  }
  return phases;
}

async function timed(url: string, init: RequestInit): Promise<Timed> {
  const start = performance.now();
  const response = await fetch(url, init);
  const ttfbMs = performance.now() - start;
  const phases = parseServerTiming(response.headers.get("server-timing"));
  return {
    status: response.status,
    ttfbMs,
    phases,
    text: await response.text(),
  };
}

function assertPhases(t: Timed, expected: string[], absent: string[]): void {
  assert.equal(t.status, 200, t.text);
  for (const phase of expected) {
    assert.ok(t.phases.has(phase), `${phase} in ${[...t.phases]}`);
  }
  for (const phase of absent) {
    assert.ok(!t.phases.has(phase), `no ${phase} in ${[...t.phases]}`);
  }
  const names = [...t.phases.keys()];
  // In the order a turn meets them, each a known phase.
  assert.deepEqual(names, PHASES.filter((p) => t.phases.has(p)));
  let sum = 0;
  for (const [phase, ms] of t.phases) {
    assert.ok(ms >= 0, `${phase} ${ms}`);
    sum += ms;
  }
  // Each is rounded to 0.01 ms: the sum may be over by half of that per phase.
  assert.ok(
    sum <= t.ttfbMs + 0.005 * t.phases.size,
    `phases add up to ${sum} ms, the client saw the first byte after ${t.ttfbMs} ms`,
  );
}

for (const store of storesUnderTest(process.env)) {
  describe(`Server-Timing on a turn's answer (${store.name})`, () => {
    let openai: FakeProvider;
    let app: TestApp;
    let served: Served;
    let alice: Account;
    let dispose: () => Promise<void>;
    const driver = store.name === "PGlite" ? "pglite" : "postgres";

    before(async () => {
      openai = await startFakeProvider();
      const opened = await store.open();
      dispose = opened.dispose;
      const telemetry = await createTelemetry({ metrics: true });
      app = await createEngineApp({
        openai: openai.url,
        ollama: "http://127.0.0.1:9",
        db: opened.db,
        telemetry,
      });
      served = await serveHandler(app.handler);
      alice = await signUp(app);
      const r = await call(app, "PUT", "/api/v1/policies/default", {
        token: alice.token,
        body: POLICY,
      });
      assert.ok(r.status === 200 || r.status === 201, JSON.stringify(r.body));
    });
    after(async () => {
      await served.close();
      await app.close();
      await dispose();
      await openai.close();
    });

    async function session(): Promise<string> {
      const r = await call(app, "POST", "/api/v1/sessions", {
        token: alice.token,
        body: { title: "t" },
      });
      return r.body.session.id;
    }

    const execute = async (accept?: string) =>
      timed(`${served.url}/api/v1/sessions/${await session()}/execute`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${alice.token}`,
          "content-type": "application/json",
          ...KEY,
          ...(accept ? { accept } : {}),
        },
        body: JSON.stringify({ input: { text: "hello" }, policy: POLICY }),
      });

    test("a buffered execute names every phase up to its answer, adding up to no more than its first byte", async () => {
      openai.enqueue(openAiReply({ text: "hi" }));
      const t = await execute();
      assertPhases(t, [...BEFORE_STREAM, ...BUFFERED_ONLY], COMPAT_ONLY);
      assert.equal(JSON.parse(t.text).status, "completed");
    });

    test("a streamed execute names the phases before its headers, none of the provider's", async () => {
      openai.enqueue(openAiStream(["a", "b"], 20));
      const t = await execute("text/event-stream");
      assertPhases(t, BEFORE_STREAM, [
        "provider_first_byte",
        "provider_rest",
        "write",
      ]);
      assert.match(t.text, /"turn_end"/);
    });

    test("a refused execute still names the phases it went through", async () => {
      const t = await timed(
        `${served.url}/api/v1/sessions/${await session()}/execute`,
        {
          method: "POST",
          headers: {
            authorization: `Bearer ${alice.token}`,
            "content-type": "application/json",
          },
          body: JSON.stringify({ input: {} }),
        },
      );
      assert.equal(t.status, 422, t.text);
      // Authentication, and a wait for the loop's time for starts if it had one; then the answer.
      assert.deepEqual([...t.phases.keys()].filter((p) => p !== "queue"), ["auth", "answer"]);
    });

    const chat = (stream: boolean) =>
      timed(`${served.url}/v1/chat/completions`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${alice.apiKey}`,
          "content-type": "application/json",
          ...KEY,
        },
        body: JSON.stringify({
          model: "switchyard",
          stream,
          messages: [{ role: "user", content: `hello ${crypto.randomUUID()}` }],
        }),
      });

    test("/v1/chat/completions, buffered and streamed, carries the same phases and its session's", async () => {
      openai.enqueue(openAiReply({ text: "hi" }));
      assertPhases(await chat(false), [
        ...BEFORE_STREAM,
        ...COMPAT_ONLY,
        ...BUFFERED_ONLY,
      ], []);
      // Its headers wait for the provider's first event (a failure before it is still an HTTP
      // error): they name the provider's phases up to it, not the turn's end.
      openai.enqueue(openAiStream(["a", "b"], 20));
      assertPhases(await chat(true), [
        ...BEFORE_STREAM,
        ...COMPAT_ONLY,
        "provider_connect",
        "provider_first_byte",
      ], ["write"]);
    });

    test("/v1/messages carries them too", async () => {
      openai.enqueue(openAiReply({ text: "hi" }));
      const t = await timed(`${served.url}/v1/messages`, {
        method: "POST",
        headers: {
          "x-api-key": alice.apiKey,
          "anthropic-version": "2023-06-01",
          "content-type": "application/json",
          ...KEY,
        },
        body: JSON.stringify({
          model: "switchyard",
          max_tokens: 100,
          messages: [{ role: "user", content: `hello ${crypto.randomUUID()}` }],
        }),
      });
      assertPhases(
        t,
        [...BEFORE_STREAM, ...COMPAT_ONLY, ...BUFFERED_ONLY],
        [],
      );
    });

    test("the phases of claimed turns are a histogram on /metrics, labelled with the store", async () => {
      const b = await scrape(app.handler);
      openai.enqueue(openAiReply({ text: "one" }));
      openai.enqueue(openAiReply({ text: "two" }));
      assert.equal((await execute()).status, 200);
      assert.equal((await execute()).status, 200);
      const a = await scrape(app.handler);
      // `answer` is the header's alone: the histogram is observed as the turn ends, before it.
      for (const phase of [...BEFORE_STREAM, ...BUFFERED_ONLY].filter((p) => p !== "answer")) {
        assert.equal(
          delta(
            b,
            a,
            "switchyard_turn_phase_seconds",
            { phase, store: driver },
            true,
          ),
          2,
          phase,
        );
      }
      // A native execute reads its session with its token: it never meets `session`.
      assert.equal(
        delta(b, a, "switchyard_turn_phase_seconds", {
          phase: "session",
          store: driver,
        }, true),
        0,
      );
    });
  });
}
