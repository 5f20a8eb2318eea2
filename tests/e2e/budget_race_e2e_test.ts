/**
 * Budgets that are never passed (decisions.md §13), raced on real service
 * processes: 50 concurrent calls of short and long prompts across the native
 * API and the OpenAI- and Anthropic-compatible surfaces (through the official
 * clients), on one instance of each store and on two instances sharing
 * PostgreSQL; one instance stopped (SIGSTOP) longer than its heartbeat lapse
 * and its claims' lease while its calls are in flight; one killed (kill -9) mid-call. Every race:
 * spend never above the budget, the usage report and the budget's ledger
 * agree to the last digit (nothing charged twice, nothing lost), and a killed
 * instance's reservations are freed. Each race prints budget, admitted, spent.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { execFileSync } from "node:child_process";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import Big from "big.js";
import { postJson, type ServiceProcess, startService } from "../../bench/service_process.ts";
import { pgliteStore, postgresStore, type StoreUnderTest } from "./liveness_support.ts";
import { CLAIM_LEASE_MS } from "../../src/store/runs.ts";

const adminUrl = process.env.DATABASE_URL;
const OPERATOR = "operator-token-for-budget-races";
const PROVIDER_KEY = "sk-test-0123456789";
const BUDGET = "0.05";
/** What the provider writes when it may: more than most budgets near their end allow. */
const WANTED_OUTPUT = 3000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A Chat Completions provider that answers every request after `delayMs`,
 * writing `min(max_completion_tokens, WANTED_OUTPUT)` tokens and reporting
 * as input a quarter of the characters of the messages' text: a provider that
 * honours the output limit it is sent, as every real one does.
 */
async function startProvider() {
  const state = { delayMs: 0, calls: 0 };
  const sockets = new Set<Socket>();
  const read = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let body = "";
      req.on("data", (c) => body += c);
      req.on("end", () => resolve(body));
    });
  const server = createServer(async (req, res) => {
    const text = await read(req);
    if (req.method === "GET") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          object: "list",
          data: [{ id: "gpt-4o-mini", object: "model" }],
        }),
      );
      return;
    }
    state.calls++;
    const body = JSON.parse(text);
    const limit = body.max_completion_tokens ?? body.max_tokens ?? 16_384;
    const output = Math.min(limit, WANTED_OUTPUT);
    const chars = (body.messages as { content: unknown }[])
      .reduce(
        (n, m) => n + (typeof m.content === "string" ? m.content.length : 0),
        0,
      );
    const usage = {
      prompt_tokens: Math.ceil(chars / 4),
      completion_tokens: output,
      total_tokens: Math.ceil(chars / 4) + output,
    };
    // Waits, unless the service hung up (a killed instance): no timer outlives the test.
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, state.delayMs);
      res.once("close", () => {
        clearTimeout(timer);
        resolve();
      });
    });
    if (res.destroyed || res.writableEnded) return;
    const common = {
      id: "chatcmpl-race",
      created: 1741569952,
      model: "gpt-4o-mini",
    };
    if (body.stream === true) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = (o: unknown) => res.write(`data: ${JSON.stringify(o)}\n\n`);
      chunk({
        ...common,
        object: "chat.completion.chunk",
        choices: [{
          index: 0,
          delta: { role: "assistant", content: "ok" },
          finish_reason: null,
        }],
      });
      chunk({
        ...common,
        object: "chat.completion.chunk",
        choices: [{ index: 0, delta: {}, finish_reason: "length" }],
      });
      chunk({ ...common, object: "chat.completion.chunk", choices: [], usage });
      res.end("data: [DONE]\n\n");
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({
      ...common,
      object: "chat.completion",
      choices: [{
        index: 0,
        message: { role: "assistant", content: "ok" },
        finish_reason: "length",
      }],
      usage,
    }));
  });
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    state,
    close() {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Stops or continues a process by the kill command: every runtime's own kill sends those alike. */
function signal(s: ServiceProcess, name: "STOP" | "CONT") {
  try {
    execFileSync("kill", [`-${name}`, String(s.pid)]);
  } catch {
    // already gone
  }
}

type Provider = Awaited<ReturnType<typeof startProvider>>;
let provider: Provider;
const running: ServiceProcess[] = [];
const opened: StoreUnderTest[] = [];

before(async () => {
  provider = await startProvider();
});
after(async () => {
  for (const s of running) {
    signal(s, "CONT");
    s.kill("SIGKILL");
  }
  for (const store of opened) await store.drop();
  await provider.close();
});

async function instance(store: StoreUnderTest): Promise<ServiceProcess> {
  const started = await startService({
    ...store.env,
    ROUTER_PROVIDERS_OPENAI_BASE_URL: `${provider.url}/v1`,
    ROUTER_AUTH_OPERATOR_TOKEN: OPERATOR,
  });
  running.push(started);
  return started;
}

interface Team {
  bearer: Record<string, string>;
  token: string;
  apiKey: string;
  userId: string;
}

const operator = {
  authorization: `Bearer ${OPERATOR}`,
  "content-type": "application/json",
};

/** A user with the budget, signed in, whose `default` policy routes to the fake's model. */
async function budgetedUser(url: string): Promise<Team> {
  const made = await postJson(url, "/api/v1/admin/users", operator, {
    name: "racer",
  });
  const { token } = await postJson(url, "/api/v1/auth/sign-in", {
    "x-router-api-key": made.api_key,
  });
  const bearer = {
    authorization: `Bearer ${token}`,
    "content-type": "application/json",
  };
  const policy = await fetch(`${url}/api/v1/policies/default`, {
    method: "PUT",
    headers: bearer,
    body: JSON.stringify(POLICY),
  });
  assert.ok(policy.status < 300, await policy.text());
  const budget = await fetch(`${url}/api/v1/admin/users/${made.user_id}`, {
    method: "PUT",
    headers: operator,
    body: JSON.stringify({ budget: { daily: BUDGET } }),
  });
  assert.equal(budget.status, 200, await budget.text());
  return { bearer, token, apiKey: made.api_key, userId: made.user_id };
}

const POLICY = {
  routing: { default: { model: "openai/gpt-4o-mini" }, rules: [] },
  privacy: { remote: { mode: "allow" } },
};
const SHORT = "Say hello in five words.";
/** About 6,000 tokens of prompt: its input alone is a tenth of a call's most possible cost. */
const LONG = `Review this log and summarise it:\n${
  "error: parser failed at line 12\n".repeat(750)
}`;

type Surface = "native" | "openai" | "anthropic";
const SURFACES: Surface[] = ["native", "openai", "anthropic"];

/** One call on `surface` of `url`: its status (200 admitted, 429 refused by the budget). */
async function oneCall(
  url: string,
  team: Team,
  surface: Surface,
  text: string,
  stream: boolean,
) {
  const headers = { "x-router-provider-openai-api-key": PROVIDER_KEY };
  try {
    if (surface === "native") {
      const { session } = await postJson(url, "/api/v1/sessions", team.bearer, {
        title: "race",
      });
      const r = await fetch(`${url}/api/v1/sessions/${session.id}/execute`, {
        method: "POST",
        headers: { ...team.bearer, ...headers },
        body: JSON.stringify({ input: { text }, policy: POLICY }),
      });
      const body = await r.json();
      if (r.status === 429) assert.equal(body.error.code, "budget_exceeded");
      return r.status;
    }
    if (surface === "openai") {
      const client = new OpenAI({
        apiKey: team.apiKey,
        baseURL: `${url}/v1`,
        defaultHeaders: headers,
        maxRetries: 0,
      });
      const messages = [{ role: "user" as const, content: text }];
      if (stream) {
        const chunks = await client.chat.completions.create({
          model: "switchyard",
          messages,
          stream: true,
        });
        for await (const _ of chunks) { /* read to the end */ }
      } else {await client.chat.completions.create({
          model: "switchyard",
          messages,
        });}
      return 200;
    }
    const client = new Anthropic({
      apiKey: team.apiKey,
      baseURL: url,
      defaultHeaders: headers,
      maxRetries: 0,
    });
    const request = {
      model: "switchyard",
      max_tokens: 8192,
      messages: [{ role: "user" as const, content: text }],
    };
    if (stream) await client.messages.stream(request).finalMessage();
    else await client.messages.create(request);
    return 200;
  } catch (error) {
    const status = (error as { status?: number }).status;
    if (status === 429) return 429;
    throw error;
  }
}

/**
 * `n` calls spread over `urls`, the surfaces, short and long prompts, streamed
 * or not, started `gapMs` apart (0: all at once), so later ones meet a budget
 * that earlier ones have partly reserved and partly spent.
 */
async function race(urls: string[], team: Team, n: number, gapMs = 0) {
  const statuses = await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      await sleep(i * gapMs);
      return await oneCall(
        urls[i % urls.length],
        team,
        SURFACES[i % 3],
        i % 4 < 2 ? SHORT : LONG,
        i % 2 === 0,
      );
    }),
  );
  for (const s of statuses) assert.ok(s === 200 || s === 429, String(s));
  return statuses.filter((s) => s === 200).length;
}

/** The user's report: the usage events' total and the budget's view of the day. */
async function report(url: string, team: Team) {
  const r = await fetch(`${url}/api/v1/usage`, { headers: team.bearer });
  assert.equal(r.status, 200);
  const body = await r.json();
  return {
    cost: body.total.estimated_cost as string,
    spent: body.budget.daily.spent as string,
    reserved: body.budget.daily.reserved as string,
  };
}

/** Spend within the budget, and the usage events and the ledger agree to the last digit. */
async function settled(
  url: string,
  team: Team,
  name: string,
  admitted: number,
) {
  const r = await report(url, team);
  console.log(
    `budget race ${name}: budget ${BUDGET} USD, admitted ${admitted}, spent ${r.spent} USD`,
  );
  assert.ok(new Big(r.spent).lte(BUDGET), `spent ${r.spent} > ${BUDGET}`);
  assert.equal(r.reserved, "0");
  assert.equal(
    new Big(r.cost).toFixed(),
    new Big(r.spent).toFixed(),
    "usage and ledger agree",
  );
  return r;
}

async function open(store: () => Promise<StoreUnderTest>) {
  const s = await store();
  opened.push(s);
  return s;
}

const stores: { name: string; open: () => Promise<StoreUnderTest> }[] = [
  { name: "PGlite", open: pgliteStore },
  ...(adminUrl ? [{ name: "PostgreSQL", open: () => postgresStore(adminUrl) }] : []),
];

for (const store of stores) {
  describe(`budget races on ${store.name}`, () => {
    test("50 concurrent calls on one instance never pass the budget", async () => {
      const one = await instance(await open(store.open));
      const team = await budgetedUser(one.url);
      provider.state.delayMs = 300;
      const admitted = await race([one.url], team, 50, 40);
      await settled(one.url, team, `${store.name}, one instance`, admitted);
      await one.stop();
    });
  });
}

if (adminUrl) {
  describe("budget races on two instances sharing PostgreSQL", () => {
    test("50 concurrent calls across two instances never pass the budget", async () => {
      const db = await open(() => postgresStore(adminUrl));
      const one = await instance(db);
      const two = await instance(db);
      const team = await budgetedUser(one.url);
      provider.state.delayMs = 300;
      const admitted = await race([one.url, two.url], team, 50, 40);
      await settled(two.url, team, "PostgreSQL, two instances", admitted);
      await one.stop();
      await two.stop();
    });

    test("an instance stopped (SIGSTOP) longer than its heartbeat lapse and its claims' lease keeps its reservations", async () => {
      const db = await open(() => postgresStore(adminUrl));
      const one = await instance(db);
      const two = await instance(db);
      const team = await budgetedUser(one.url);
      // The first instance's calls are admitted and wait on the provider; then it stops.
      provider.state.delayMs = 1500;
      const before = provider.state.calls;
      const paused = race([one.url], team, 10);
      while (provider.state.calls - before < 3) await sleep(20);
      await sleep(200);
      signal(one, "STOP");
      // Past its heartbeat lapse (3 s) and its claims' lease (30 s) its calls are alive: the other
      // instance must still count their reservations.
      await sleep(CLAIM_LEASE_MS + 1000);
      const held = await report(two.url, team);
      assert.ok(
        new Big(held.reserved).gt(0),
        "the stopped instance's calls still hold reservations",
      );
      provider.state.delayMs = 100;
      const meanwhile = await race([two.url], team, 40, 40);
      signal(one, "CONT");
      const admitted = (await paused) + meanwhile;
      await settled(
        two.url,
        team,
        "PostgreSQL, one instance stopped 33 s",
        admitted,
      );
      await one.stop();
      await two.stop();
    });

    test("a kill -9 mid-call frees the killed instance's reservations", async () => {
      const db = await open(() => postgresStore(adminUrl));
      const one = await instance(db);
      const two = await instance(db);
      const team = await budgetedUser(one.url);
      provider.state.delayMs = 60_000;
      const before = provider.state.calls;
      const doomed = race([one.url], team, 10).catch(() => 0);
      while (provider.state.calls - before < 3) await sleep(20);
      await sleep(300);
      const held = await report(two.url, team);
      assert.ok(
        new Big(held.reserved).gt(0),
        "the running calls hold reservations",
      );
      one.kill("SIGKILL");
      await one.exited;
      await doomed;
      // Its lock went with its connection: as soon as the database sees the connection closed,
      // its reservations count no more (its heartbeat does not matter: it has a lock).
      const killedAt = Date.now();
      let freed = await report(two.url, team);
      while (freed.reserved !== "0" && Date.now() - killedAt < 5000) {
        await sleep(50);
        freed = await report(two.url, team);
      }
      assert.equal(freed.reserved, "0");
      console.log(`reservations freed ${Date.now() - killedAt} ms after the kill`);
      provider.state.delayMs = 100;
      const admitted = await race([two.url], team, 50, 40);
      assert.ok(admitted > 0);
      await settled(
        two.url,
        team,
        "PostgreSQL, one instance killed mid-call",
        admitted,
      );
      await two.stop();
    });
  });
}
