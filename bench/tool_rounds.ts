/**
 * An agent's tool round at concurrency 1: `execute` pauses for one
 * `read_file` call, and the `continue` that answers it is timed, on both
 * stores (PostgreSQL when DATABASE_URL names a server, or the local one).
 * Each session takes 50 rounds: rounds 1–5 count as fresh, rounds 41–50 as
 * deep (by then the session holds 160 messages), so a round that grows with
 * the history shows it. `deno task bench:tools [rounds]` (200 of each by default).
 */
import process from "node:process";
import { createScratchDatabase } from "../tests/support/databases.ts";
import { completion, startChatProvider } from "./chat_provider.ts";
import { type Spread, spread } from "./measure.ts";
import { postJson } from "./service_process.ts";
import { startServiceClient } from "./turn_http.ts";

const ROUNDS = Number(Deno.args[0] ?? 200);
const PER_SESSION = 50;
const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const POLICY = {
  routing: { default: { model: "openai/gpt-4o-mini" } },
  tools: { permissions: { file_read: "allow" } },
  privacy: { remote: { mode: "allow" } },
};

let calls = 0;
/** Asks for `read_file` after a user's message, answers in text after a tool result. */
function answer(body: string): string {
  const last = (JSON.parse(body) as { messages: { role: string }[] }).messages.at(-1);
  if (last?.role === "tool") return completion({ content: "Read it: the parser is fine." }, "stop");
  const call = {
    id: `call_${calls++}`,
    type: "function",
    function: { name: "read_file", arguments: JSON.stringify({ path: "src/parser.ts" }) },
  };
  return completion({ content: null, tool_calls: [call] }, "tool_calls");
}

async function measureStore(store: "PGlite" | "PostgreSQL", providerUrl: string) {
  const scratch = store === "PostgreSQL" ? await createScratchDatabase(adminUrl) : undefined;
  const s = await startServiceClient(providerUrl, scratch?.url);
  try {
    const post = (path: string, body: unknown) => postJson(s.url, path, s.headers, body);
    /** One round; the continue's time. */
    const round = async (id: string) => {
      const input = { text: "please read the parser" };
      const paused = await post(s.executePath(id), { input, policy: POLICY });
      if (paused.status !== "awaiting_tool") throw new Error(`paused: ${JSON.stringify(paused)}`);
      const result = {
        call_id: paused.data.tool_requests[0].call_id,
        content: "export const parse = (text: string) => text.trim();\n".repeat(20),
        is_error: false,
      };
      const started = performance.now();
      const done = await post(`/api/v1/sessions/${id}/continue`, {
        type: "tool_results",
        data: { results: [result] },
      });
      const ms = performance.now() - started;
      if (done.status !== "completed") throw new Error(`continued: ${JSON.stringify(done)}`);
      return ms;
    };
    const warm = await s.newSession();
    for (let i = 0; i < 30; i++) await round(warm);
    const fresh: number[] = [];
    const deep: number[] = [];
    while (deep.length < ROUNDS) {
      const id = await s.newSession();
      for (let i = 0; i < PER_SESSION; i++) {
        const ms = await round(id);
        if (i < 5) fresh.push(ms);
        else if (i >= PER_SESSION - 10) deep.push(ms);
      }
    }
    return { store, fresh: spread(fresh), deep: spread(deep) };
  } finally {
    await s.close();
    await scratch?.drop();
  }
}

const provider = await startChatProvider({}, answer);
try {
  const rows = [
    await measureStore("PGlite", provider.url),
    await measureStore("PostgreSQL", provider.url),
  ];
  const ms = (s: Spread) => `${s.p50.toFixed(2)} / ${s.p99.toFixed(2)}`;
  console.log(`\nA tool round's continue at concurrency 1, ms p50 / p99 (${ROUNDS} of each)\n`);
  console.log("| store | rounds 1–5 | rounds 41–50 (160 messages) | deep / fresh p50 |");
  console.log("|---|---:|---:|---:|");
  for (const r of rows) {
    const ratio = (r.deep.p50 / r.fresh.p50).toFixed(2);
    console.log(`| ${r.store} | ${ms(r.fresh)} | ${ms(r.deep)} | ${ratio}× |`);
  }
} finally {
  await provider.close();
}
