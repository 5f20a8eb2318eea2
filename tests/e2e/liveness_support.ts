/**
 * The service as separate processes for the liveness tests (issue 12): an
 * instance on a store of the test's choosing, pointed at a fake Chat
 * Completions provider in the test, and the few client calls the tests make.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  newSession,
  type ServiceProcess,
  signedIn,
  startService,
} from "../../bench/service_process.ts";
import { createScratchDatabase } from "../support/databases.ts";
import type { ChatProvider } from "../../bench/chat_provider.ts";
import { TURN_BODY } from "../../bench/turn_http.ts";
import { parseSse } from "../support/engine_app.ts";

/** Where the instances keep their data: a directory for PGlite, a scratch database for PostgreSQL. */
export interface StoreUnderTest {
  name: string;
  env: Record<string, string>;
  drop(): Promise<void>;
}

export async function pgliteStore(): Promise<StoreUnderTest> {
  const dir = await mkdtemp(join(tmpdir(), "switchyard-liveness-"));
  return {
    name: "PGlite",
    env: { ROUTER_STORAGE_PATH: dir },
    drop: () => rm(dir, { recursive: true, force: true }),
  };
}

export async function postgresStore(adminUrl: string): Promise<StoreUnderTest> {
  const scratch = await createScratchDatabase(adminUrl);
  return { name: "PostgreSQL", env: { ROUTER_DATABASE_URL: scratch.url }, drop: scratch.drop };
}

export function startInstance(
  store: StoreUnderTest,
  provider: ChatProvider,
  env: Record<string, string> = {},
): Promise<ServiceProcess> {
  return startService({
    ...store.env,
    ROUTER_PROVIDERS_OPENAI_BASE_URL: `${provider.url}/v1`,
    ...env,
  });
}

/** A signed-in client's headers, with the provider key, and one new session. */
export async function client(
  url: string,
): Promise<{ headers: Record<string, string>; id: string }> {
  const headers = {
    ...await signedIn(url),
    "content-type": "application/json",
    "x-router-provider-openai-api-key": "sk-test-0123456789",
  };
  return { headers, id: await newSession(url, headers) };
}

export async function execute(url: string, headers: Record<string, string>, id: string) {
  const response = await fetch(`${url}/api/v1/sessions/${id}/execute`, {
    method: "POST",
    headers,
    body: JSON.stringify(TURN_BODY),
  });
  // deno-lint-ignore no-explicit-any
  return { status: response.status, body: await response.json() as any };
}

/**
 * Starts a streamed turn and reads it until the first text delta arrived;
 * `rest` resolves with the whole body once the stream ends (or is torn down).
 */
export async function streamUntilText(
  url: string,
  headers: Record<string, string>,
  id: string,
): Promise<{ rest: Promise<string> }> {
  const response = await fetch(`${url}/api/v1/sessions/${id}/execute`, {
    method: "POST",
    headers: { ...headers, accept: "text/event-stream" },
    body: JSON.stringify(TURN_BODY),
  });
  assert.equal(response.status, 200);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes('"type":"text_delta"')) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the stream ended before any text: ${text}`);
    text += decoder.decode(value, { stream: true });
  }
  const rest = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return text;
        text += decoder.decode(value, { stream: true });
      }
    } catch {
      return text; // the instance died
    }
  })();
  return { rest };
}

/** The `turn_end` event of a finished stream. */
export function turnEndOf(text: string): Record<string, unknown> {
  const ends = parseSse(text).events.filter((e) => e.type === "turn_end");
  assert.equal(ends.length, 1, `one turn_end expected in:\n${text}`);
  return ends[0];
}

/** Retries an execute while it answers 409 `run_in_flight`; the answer and when it came. */
export async function executeOnceFree(
  url: string,
  headers: Record<string, string>,
  id: string,
  giveUpMs = 40_000,
) {
  const started = Date.now();
  for (;;) {
    const answer = await execute(url, headers, id);
    if (answer.status !== 409 || Date.now() - started > giveUpMs) {
      return { ...answer, at: Date.now() };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The plaintext payloads of the session's `message` trace events, every page. */
export async function messageEvents(url: string, headers: Record<string, string>, id: string) {
  type Event = { event_type: string; payload: { plaintext: Record<string, unknown> } };
  const events: Event[] = [];
  for (;;) {
    const path = `/api/v1/sessions/${id}/traces?limit=100&offset=${events.length}`;
    const response = await fetch(`${url}${path}`, { headers });
    assert.equal(response.status, 200);
    const page = (await response.json()).trace.events as Event[];
    if (page.length === 0) break;
    events.push(...page);
  }
  return events.filter((e) => e.event_type === "message").map((e) => e.payload.plaintext);
}
