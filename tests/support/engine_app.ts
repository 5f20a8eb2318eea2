/**
 * Helpers for run engine tests: an app with providers pointed at fakes, provider replies shaped like the recorded fixtures, and a
 * reader for streamed turns that checks every event against the OpenAPI
 * document.
 */
import assert from "node:assert/strict";
import { after, before, beforeEach } from "node:test";
import type { WebAssets } from "../../src/http/web_assets.ts";
import type { Config } from "../../src/config.ts";
import type { Db } from "../../src/store/db.ts";
import { openPostgres } from "../../src/store/postgres_driver.ts";
import { openSupersedeSignals, type SupersedeSignals } from "../../src/store/supersede_signal.ts";
import type { Telemetry } from "../../src/telemetry/telemetry.ts";
import { type Account, call, createTestApp, signUp, type TestApp } from "./app.ts";
import { createScratchDatabase } from "./databases.ts";
import { type FakeProvider, type FixtureResponse, startFakeProvider } from "./fake_provider.ts";
import { assertMatchesSchema } from "./openapi.ts";

export interface EngineAppOptions {
  /** Fake provider base URLs: `openai` (remote, keyed) and `ollama` (local). */
  openai: string;
  ollama: string;
  db?: Db;
  signals?: SupersedeSignals;
  webAssets?: WebAssets;
  telemetry?: Telemetry;
  configure?: (config: Config) => void;
}

/** The service in process with openai and ollama pointed at fake providers, models configured. */
export function createEngineApp(o: EngineAppOptions): Promise<TestApp> {
  return createTestApp({
    db: o.db,
    signals: o.signals,
    webAssets: o.webAssets,
    telemetry: o.telemetry,
    providers: {
      openai: { base_url: `${o.openai}/v1`, models: ["gpt-4o-mini", "gpt-4o"] },
      ollama: { base_url: o.ollama, models: ["qwen3:8b"] },
    },
    configure: (config) => {
      config.limits.providerTimeoutMs = 10_000;
      o.configure?.(config);
    },
  });
}

/** What an engine test file shares: the fakes, the app, one signed-up user. */
export interface EngineHarness {
  openai: FakeProvider;
  ollama: FakeProvider;
  app: TestApp;
  alice: Account;
  /** A new session of alice's. */
  session(): Promise<string>;
}

/**
 * Registers the hooks that start the fake providers and the app before the
 * file's tests, clear recorded requests before each, and close all after.
 */
export function engineHarness(): EngineHarness {
  const h = {
    async session() {
      const r = await call(h.app, "POST", "/api/v1/sessions", {
        token: h.alice.token,
        body: { title: "t" },
      });
      return r.body.session.id as string;
    },
  } as EngineHarness;
  before(async () => {
    h.openai = await startFakeProvider();
    h.ollama = await startFakeProvider();
    h.app = await createEngineApp({ openai: h.openai.url, ollama: h.ollama.url });
    h.alice = await signUp(h.app);
  });
  after(async () => {
    await h.app.close();
    await h.openai.close();
    await h.ollama.close();
  });
  beforeEach(() => {
    h.openai.requests.length = 0;
    h.ollama.requests.length = 0;
  });
  return h;
}

/** Two service instances sharing one scratch PostgreSQL database, as a scale-out deployment. */
export interface TwoInstances {
  openai: FakeProvider;
  one: TestApp;
  two: TestApp;
  /** A connection of the first instance, for reading the shared database. */
  db: Db;
  /** Signed up through the first instance. */
  alice: Account;
}

/** Registers hooks that start two instances on a scratch database of `adminUrl` and drop it after. */
export function twoInstances(adminUrl: string): TwoInstances {
  const h = {} as TwoInstances;
  const closing: (() => Promise<void>)[] = [];
  before(async () => {
    const scratch = await createScratchDatabase(adminUrl);
    closing.push(() => scratch.drop());
    h.openai = await startFakeProvider();
    closing.unshift(() => h.openai.close());
    const apps: TestApp[] = [];
    for (let i = 0; i < 2; i++) {
      const db = openPostgres(scratch.url, { maxConnections: 4 });
      const signals = await openSupersedeSignals(scratch.url);
      closing.unshift(() => db.close(), () => signals.close());
      apps.push(
        await createEngineApp({ openai: h.openai.url, ollama: "http://127.0.0.1:9", db, signals }),
      );
    }
    [h.one, h.two] = apps;
    h.db = h.one.db;
    h.alice = await signUp(h.one);
  });
  after(async () => {
    for (const close of closing) await close();
  });
  return h;
}

const JSON_HEADERS = { "content-type": "application/json" };

export interface ReplyCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** A buffered Chat Completions answer, shaped like fixtures/providers/openai/plain_buffered.json. */
export function openAiReply(
  r: { text?: string; calls?: ReplyCall[]; input?: number; output?: number },
): FixtureResponse {
  const calls = r.calls ?? [];
  return {
    status: 200,
    headers: JSON_HEADERS,
    body: {
      id: "chatcmpl-test",
      object: "chat.completion",
      created: 1741569952,
      model: "gpt-4o-mini-2024-07-18",
      choices: [{
        index: 0,
        message: {
          role: "assistant",
          content: r.text ?? null,
          ...(calls.length > 0
            ? {
              tool_calls: calls.map((c, i) => ({
                id: `call_${i}`,
                type: "function",
                function: { name: c.name, arguments: JSON.stringify(c.arguments) },
              })),
            }
            : {}),
        },
        finish_reason: calls.length > 0 ? "tool_calls" : "stop",
      }],
      usage: {
        prompt_tokens: r.input ?? 24,
        completion_tokens: r.output ?? 7,
        total_tokens: (r.input ?? 24) + (r.output ?? 7),
      },
    },
  };
}

/** A buffered Ollama /api/chat answer, shaped like fixtures/providers/ollama/plain_buffered.json. */
export function ollamaReply(r: { text?: string; calls?: ReplyCall[] }): FixtureResponse {
  const calls = r.calls ?? [];
  return {
    status: 200,
    headers: JSON_HEADERS,
    body: {
      model: "qwen3:8b",
      created_at: "2025-03-10T12:00:00.000Z",
      message: {
        role: "assistant",
        content: r.text ?? "",
        ...(calls.length > 0
          ? {
            tool_calls: calls.map((c) => ({ function: { name: c.name, arguments: c.arguments } })),
          }
          : {}),
      },
      done: true,
      done_reason: "stop",
      prompt_eval_count: 30,
      eval_count: 9,
    },
  };
}

/** One Chat Completions stream chunk as the API frames it; with `usage`, the final usage chunk. */
function openAiChunk(delta: unknown, finish: string | null, usage?: unknown): string {
  const body = {
    id: "chatcmpl-test",
    object: "chat.completion.chunk",
    created: 1741569952,
    model: "gpt-4o-mini",
    choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }],
    usage: usage ?? null,
  };
  return `data: ${JSON.stringify(body)}\n\n`;
}

const SSE = { "content-type": "text/event-stream; charset=utf-8" };

/** A Chat Completions stream of `parts`, one text delta each, `delayMs` apart. */
export function openAiStream(parts: string[], delayMs = 0): FixtureResponse {
  return {
    status: 200,
    headers: SSE,
    chunk_delay_ms: delayMs,
    chunks: [
      openAiChunk({ role: "assistant", content: "" }, null),
      ...parts.map((p) => openAiChunk({ content: p }, null)),
      openAiChunk({}, "stop"),
      openAiChunk({}, null, { prompt_tokens: 24, completion_tokens: parts.length }),
      "data: [DONE]\n\n",
    ],
  };
}

/**
 * A stream whose first content comes at once and the rest 5 s later: whatever the test does
 * (a break, a delete) lands after content has begun.
 */
export function openAiStreamStalledAfterFirstContent(): FixtureResponse {
  const stream = openAiStream(["Hel", "lo"], 5_000);
  const [role, first, ...rest] = stream.chunks!;
  return { ...stream, chunks: [role + first, ...rest] };
}

/** A Chat Completions stream whose reply is one tool call. */
export function openAiToolCallStream(name: string, args: Record<string, unknown>): FixtureResponse {
  const call = { index: 0, id: "call_0", type: "function", function: { name, arguments: "" } };
  return {
    status: 200,
    headers: SSE,
    chunks: [
      openAiChunk({ role: "assistant", content: null, tool_calls: [call] }, null),
      openAiChunk(
        { tool_calls: [{ index: 0, function: { arguments: JSON.stringify(args) } }] },
        null,
      ),
      openAiChunk({}, "tool_calls"),
      openAiChunk({}, null, { prompt_tokens: 24, completion_tokens: 7 }),
      "data: [DONE]\n\n",
    ],
  };
}

/** Parses an SSE body into its events (comments dropped), checking each against the document. */
export function parseSse(text: string): { events: Record<string, unknown>[]; comments: number } {
  const events: Record<string, unknown>[] = [];
  let comments = 0;
  for (const frame of text.split("\n\n")) {
    if (frame === "") continue;
    if (frame.startsWith(":")) {
      comments++;
      continue;
    }
    if (!frame.startsWith("data: ")) throw new Error(`unexpected SSE frame: ${frame}`);
    const event = JSON.parse(frame.slice("data: ".length));
    assertMatchesSchema("TurnStreamEvent", event);
    events.push(event);
  }
  return { events, comments };
}

export interface StreamResult {
  status: number;
  contentType: string | null;
  // deno-lint-ignore no-explicit-any
  events: any[];
  // deno-lint-ignore no-explicit-any
  body?: any;
}

/** Sends a streamed request; a JSON answer (a failure before the stream) comes back as `body`. */
export async function callStream(
  app: Pick<TestApp, "handler">,
  path: string,
  token: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<StreamResult> {
  const response = await app.handler(
    new Request(`http://127.0.0.1${path}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        accept: "text/event-stream",
        "content-type": "application/json",
        ...headers,
      },
      body: JSON.stringify(body),
    }),
  );
  const contentType = response.headers.get("content-type");
  const text = await response.text();
  if (!contentType?.startsWith("text/event-stream")) {
    return { status: response.status, contentType, events: [], body: JSON.parse(text) };
  }
  return { status: response.status, contentType, events: parseSse(text).events };
}

/** A stream being read as it comes. */
export interface OpenStream {
  /** Reads until an event of `type` arrives (or the stream ends); returns every event so far. */
  // deno-lint-ignore no-explicit-any
  until(type: string): Promise<any[]>;
  cancel(): Promise<void>;
}

/** Starts a streamed request and hands back the open stream, to act while it runs. */
export async function openStream(
  app: Pick<TestApp, "handler">,
  path: string,
  token: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<OpenStream> {
  const response = await app.handler(
    new Request(`http://127.0.0.1${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, accept: "text/event-stream", ...headers },
      body: JSON.stringify(body),
    }),
  );
  assert.equal(response.status, 200);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  return {
    async until(type) {
      for (;;) {
        const events = parseSse(text.slice(0, text.lastIndexOf("\n\n") + 2)).events;
        if (events.some((e) => e.type === type)) return events;
        const { done, value } = await reader.read();
        if (done) return parseSse(text).events;
        text += decoder.decode(value, { stream: true });
      }
    },
    cancel: () => reader.cancel(),
  };
}
