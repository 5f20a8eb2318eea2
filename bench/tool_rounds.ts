/**
 * An agent's tool round at concurrency 1: `execute` pauses for one
 * `read_file` call, and the `continue` that answers it is timed, on both
 * stores (PostgreSQL when DATABASE_URL names a server, or the local one).
 * Each session takes 50 rounds: rounds 1–5 count as fresh, rounds 41–50 as
 * deep (by then the session holds 160 messages), so a round that grows with
 * the history shows it. `deno task bench:tools [rounds]` (200 of each by default).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import process from "node:process";
import { createScratchDatabase } from "../tests/support/databases.ts";
import { type Spread, spread } from "./measure.ts";
import { newSession, signedIn, startService } from "./service_process.ts";

const ROUNDS = Number(Deno.args[0] ?? 200);
const PER_SESSION = 50;
const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

const completion = (message: Record<string, unknown>, finish: string) =>
  JSON.stringify({
    id: "chatcmpl-bench",
    object: "chat.completion",
    created: 1741569952,
    model: "gpt-4o-mini",
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finish }],
    usage: { prompt_tokens: 24, completion_tokens: 7, total_tokens: 31 },
  });

/** Asks for `read_file` after a user's message, answers in text after a tool result. */
function answer(req: IncomingMessage, res: ServerResponse, body: string, calls: number): void {
  res.writeHead(200, { "content-type": "application/json" });
  if (req.method === "GET") {
    res.end(JSON.stringify({ object: "list", data: [{ id: "gpt-4o-mini", object: "model" }] }));
    return;
  }
  const last = (JSON.parse(body) as { messages: { role: string }[] }).messages.at(-1);
  if (last?.role === "tool") {
    res.end(completion({ content: "Read it: the parser is fine." }, "stop"));
    return;
  }
  const call = {
    id: `call_${calls}`,
    type: "function",
    function: { name: "read_file", arguments: JSON.stringify({ path: "src/parser.ts" }) },
  };
  res.end(completion({ content: null, tool_calls: [call] }, "tool_calls"));
}

async function measureStore(store: "PGlite" | "PostgreSQL", providerUrl: string) {
  const scratch = store === "PostgreSQL" ? await createScratchDatabase(adminUrl) : undefined;
  const service = await startService({
    ROUTER_PROVIDERS_OPENAI_BASE_URL: `${providerUrl}/v1`,
    ...(scratch === undefined ? {} : { ROUTER_DATABASE_URL: scratch.url }),
  });
  try {
    const headers = {
      ...await signedIn(service.url),
      "content-type": "application/json",
      "x-router-provider-openai-api-key": "sk-bench-0123456789",
    };
    const post = async (path: string, body: unknown) => {
      const r = await fetch(service.url + path, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
      });
      return await r.json();
    };
    const policy = {
      routing: { default: { model: "openai/gpt-4o-mini" } },
      tools: { permissions: { file_read: "allow" } },
      privacy: { remote: { mode: "allow" } },
    };
    /** One round; the continue's time. */
    const round = async (id: string) => {
      const input = { text: "please read the parser" };
      const paused = await post(`/api/v1/sessions/${id}/execute`, { input, policy });
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
    const warm = await newSession(service.url, headers);
    for (let i = 0; i < 30; i++) await round(warm);
    const fresh: number[] = [];
    const deep: number[] = [];
    while (deep.length < ROUNDS) {
      const id = await newSession(service.url, headers);
      for (let i = 0; i < PER_SESSION; i++) {
        const ms = await round(id);
        if (i < 5) fresh.push(ms);
        else if (i >= PER_SESSION - 10) deep.push(ms);
      }
    }
    return { store, fresh: spread(fresh), deep: spread(deep) };
  } finally {
    await service.stop();
    await scratch?.drop();
  }
}

let calls = 0;
const provider = createServer((req, res) => {
  const parts: Uint8Array[] = [];
  req.on("data", (part: Uint8Array) => parts.push(part));
  req.on("end", () => answer(req, res, Buffer.concat(parts).toString("utf8"), calls++));
});
await new Promise<void>((resolve) => provider.listen(0, "127.0.0.1", resolve));
const providerUrl = `http://127.0.0.1:${(provider.address() as { port: number }).port}`;
try {
  const rows = [
    await measureStore("PGlite", providerUrl),
    await measureStore("PostgreSQL", providerUrl),
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
  provider.close();
}
