/**
 * What prompt caching saves an agent (decisions.md §15): a 20-request agent
 * session, scripted like a coding agent's (a long system prompt and tool
 * definitions, then one tool call and its result per request, so each
 * request resends the whole growing conversation), replayed on the
 * Anthropic-compatible API without marks of its own, routed to
 * `anthropic/claude-sonnet-4-5` whose base URL is a fake that caches as
 * Anthropic does (bench/anthropic_cache_provider.ts). Once with the policy's
 * `caching = "auto"` (the service places its breakpoints), once with `"off"`.
 * For each: the cost Switchyard recorded (the user's `/api/v1/usage` total)
 * and the cost worked out by hand from the usage the fake reported and the
 * catalog's prices, which must agree to the last digit; then how many times
 * cheaper caching made the session (target ≥ 3×).
 *
 * Run: `deno task bench:cache` (or `deno run --allow-all bench/prompt_cache.ts`).
 */
import Big from "big.js";
import { lookupCatalog } from "../src/providers/catalog.ts";
import { call, createTestApp, signUp } from "../tests/support/app.ts";
import { type Answer, type CacheUsage, startCachingProvider } from "./anthropic_cache_provider.ts";

export const SESSION_REQUESTS = 20;
export const MODEL = "claude-sonnet-4-5";
export const TARGET_RATIO = 3;

/** Deterministic filler text: words drawn by a fixed linear congruential sequence. */
function text(seed: number, characters: number): string {
  const words = [
    "the",
    "parser",
    "returns",
    "token",
    "stream",
    "error",
    "when",
    "input",
    "module",
    "function",
    "test",
    "build",
    "config",
    "value",
    "field",
    "import",
    "export",
    "await",
    "request",
    "handler",
    "session",
    "cache",
    "route",
    "policy",
  ];
  let state = seed >>> 0;
  let out = "";
  while (out.length < characters) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out += (out === "" ? "" : " ") + words[state % words.length];
  }
  return out.slice(0, characters);
}

const TOOL_NAMES = ["Read", "Edit", "Write", "Bash", "Grep", "Glob", "LS", "TodoWrite", "WebFetch"];

/** The session as a client holds it: system prompt, tools, the task and each step's result. */
export function agentSession() {
  return {
    // About 3,000 tokens of instructions, as a coding agent sends.
    system: `You are a coding agent working in a repository. ${text(1, 12_000)}`,
    tools: TOOL_NAMES.map((name, i) => ({
      name,
      description: `${name}: ${text(100 + i, 640)}`,
      input_schema: {
        type: "object",
        properties: { path: { type: "string" }, pattern: { type: "string" } },
        required: ["path"],
      },
    })),
    task: "The parser test fails on empty input. Find the cause and fix it.",
    /** The result the client's tool gives at step n: 1,200 to 3,200 characters. */
    result: (n: number) => text(1000 + n, 1200 + (n * 733) % 2000),
  };
}

/** The fake model's answer to request n: a tool call until the last request, then the fix. */
export function scriptedAnswer(n: number): Answer {
  if (n >= SESSION_REQUESTS - 1) {
    return { type: "text", text: "Fixed: the parser now returns an empty stream on empty input." };
  }
  return {
    type: "tool_use",
    id: `toolu_bench_${String(n).padStart(3, "0")}`,
    name: TOOL_NAMES[n % TOOL_NAMES.length],
    input: { path: `src/parser/part_${n}.ts` },
  };
}

export interface SessionCost {
  caching: "auto" | "off";
  usages: CacheUsage[];
  /** The user's total as Switchyard recorded it (`/api/v1/usage`). */
  recorded: string;
  /** Worked out here from the fake's usage and the catalog's prices. */
  byHand: string;
}

/** uncached × input + reads × read price + writes × write price + output × output price, per 10^6. */
export function handCost(usages: readonly CacheUsage[]): string {
  const prices = lookupCatalog("anthropic", MODEL);
  if (prices === undefined) throw new Error(`${MODEL} is not in the catalog`);
  let micro = new Big(0);
  for (const u of usages) {
    micro = micro
      .plus(new Big(u.input_tokens).times(prices.input_cost_per_million_tokens!))
      .plus(new Big(u.cache_read_input_tokens).times(prices.cache_read_cost_per_million_tokens!))
      .plus(
        new Big(u.cache_creation_input_tokens).times(prices.cache_write_cost_per_million_tokens!),
      )
      .plus(new Big(u.output_tokens).times(prices.output_cost_per_million_tokens!));
  }
  const usd = micro.div(1_000_000);
  return usd.eq(0) ? "0" : usd.toFixed();
}

/** Replays the session through the Anthropic-compatible API under one `caching` setting. */
export async function replaySession(caching: "auto" | "off"): Promise<SessionCost> {
  const provider = await startCachingProvider(scriptedAnswer);
  const app = await createTestApp({
    providers: { anthropic: { base_url: provider.url, models: [MODEL] } },
  });
  try {
    const user = await signUp(app);
    const stored = await call(app, "PUT", "/api/v1/policies/agent", {
      token: user.token,
      body: {
        routing: { default: { model: `anthropic/${MODEL}`, fallbacks: [] }, rules: [] },
        privacy: { remote: { mode: "allow" } },
        caching,
      },
    });
    if (stored.status >= 300) throw new Error(`policy: ${JSON.stringify(stored.body)}`);
    const session = agentSession();
    const messages: Record<string, unknown>[] = [{ role: "user", content: session.task }];
    for (let n = 0; n < SESSION_REQUESTS; n++) {
      const r = await call(app, "POST", "/v1/messages", {
        token: user.token,
        headers: {
          "anthropic-version": "2023-06-01",
          "x-router-provider-anthropic-api-key": "sk-ant-bench",
        },
        body: {
          model: "switchyard/agent",
          max_tokens: 1024,
          system: session.system,
          tools: session.tools,
          messages,
        },
      });
      if (r.status !== 200) throw new Error(`request ${n}: ${r.status} ${JSON.stringify(r.body)}`);
      const content = r.body.content as Record<string, unknown>[];
      messages.push({ role: "assistant", content });
      const call_ = content.find((b) => b.type === "tool_use");
      if (call_ === undefined) break;
      messages.push({
        role: "user",
        content: [{ type: "tool_result", tool_use_id: call_.id, content: session.result(n) }],
      });
    }
    const usage = await call(app, "GET", "/api/v1/usage", { token: user.token });
    return {
      caching,
      usages: [...provider.usages],
      recorded: String(usage.body.total.estimated_cost),
      byHand: handCost(provider.usages),
    };
  } finally {
    await app.close();
    await provider.close();
  }
}

const sum = (usages: readonly CacheUsage[], key: keyof CacheUsage) =>
  usages.reduce((n, u) => n + u[key], 0);

/** Cached against uncached, as a printed table. */
export function costTable(runs: readonly SessionCost[]): string {
  const rows = [[
    "caching",
    "requests",
    "uncached in",
    "cache read",
    "cache write",
    "output",
    "recorded USD",
    "by hand USD",
  ]];
  for (const r of runs) {
    rows.push([
      r.caching,
      String(r.usages.length),
      String(sum(r.usages, "input_tokens")),
      String(sum(r.usages, "cache_read_input_tokens")),
      String(sum(r.usages, "cache_creation_input_tokens")),
      String(sum(r.usages, "output_tokens")),
      r.recorded,
      r.byHand,
    ]);
  }
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
  return rows.map((row) => row.map((cell, c) => cell.padStart(widths[c])).join("  ")).join("\n");
}

if (import.meta.main) {
  const auto = await replaySession("auto");
  const off = await replaySession("off");
  console.log(`prompt caching: a ${SESSION_REQUESTS}-request agent session on ${MODEL}`);
  console.log(costTable([off, auto]));
  const ratio = new Big(off.recorded).div(auto.recorded);
  const exact = auto.recorded === auto.byHand && off.recorded === off.byHand;
  console.log(
    `caching kept: ${ratio.toFixed(2)}× cheaper (target ≥ ${TARGET_RATIO}×): ${
      ratio.gte(TARGET_RATIO) ? "met" : "MISSED"
    }; recorded = by hand to the last digit: ${exact ? "yes" : "NO"}`,
  );
  if (!exact || ratio.lt(TARGET_RATIO)) Deno.exit(1);
}
