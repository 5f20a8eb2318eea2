/**
 * A brief in-process comparison of one buffered turn through
 * `/v1/chat/completions` and through `/v1/responses` (`store: false`, `store:
 * true`, and chains of up to ten `previous_response_id`s beside chat requests
 * carrying the same history), in interleaved blocks against the same fake
 * provider and session on the embedded store: p50/p90 wall time per turn and
 * the database statements each turn makes.
 * `deno run --allow-all bench/responses_vs_chat.ts`
 */
import { createEngineApp, openAiReply } from "../tests/support/engine_app.ts";
import { startFakeProvider } from "../tests/support/fake_provider.ts";
import { call, signUp } from "../tests/support/app.ts";

const openai = await startFakeProvider();
const app = await createEngineApp({
  openai: openai.url,
  ollama: "http://127.0.0.1:9",
  configure: (c) => {
    c.limits.rate.userPerMinute = 1_000_000;
    c.limits.rate.userBurst = 1_000_000;
  },
});
let statements = 0;
const query = app.db.query.bind(app.db);
app.db.query = ((text: string, params?: readonly unknown[]) => {
  statements++;
  return query(text, params);
}) as typeof app.db.query;
const alice = await signUp(app);
await call(app, "PUT", "/api/v1/policies/default", {
  token: alice.token,
  body: {
    routing: { default: { model: "openai/gpt-4o-mini", fallbacks: [] }, rules: [] },
    privacy: { remote: { mode: "allow" } },
  },
});
const session =
  (await call(app, "POST", "/api/v1/sessions", { token: alice.token, body: { title: "b" } })).body
    .session.id;
const headers = {
  authorization: `Bearer ${alice.apiKey}`,
  "x-router-provider-openai-api-key": "sk-test",
  "x-router-session-id": session,
};
const TEXT = "Explain the difference between a process and a thread in two sentences.";
const kinds: Record<string, { path: string; body: unknown }> = {
  chat: {
    path: "/v1/chat/completions",
    body: { model: "switchyard", messages: [{ role: "user", content: TEXT }] },
  },
  "responses store:false": {
    path: "/v1/responses",
    body: { model: "switchyard", input: TEXT, store: false },
  },
  "responses store:true": { path: "/v1/responses", body: { model: "switchyard", input: TEXT } },
  "chat with history": { path: "", body: null },
  "responses chained": { path: "", body: null },
};
const times: Record<string, number[]> = {};
const stmts: Record<string, number[]> = {};
let previous: string | null = null;
let history: { role: string; content: string }[] = [];
let depth = 0;
async function once(kind: string) {
  openai.enqueue(openAiReply({ text: "A process has its own memory; threads share one." }));
  if (kind === "chat with history") {
    history.push({ role: "user", content: TEXT });
  }
  const k = kind === "chat with history"
    ? { path: "/v1/chat/completions", body: { model: "switchyard", messages: history } }
    : kind === "responses chained"
    ? {
      path: "/v1/responses",
      body: {
        model: "switchyard",
        input: TEXT,
        ...(previous === null ? {} : { previous_response_id: previous }),
      },
    }
    : kinds[kind];
  const before = statements;
  const t0 = performance.now();
  const r = await app.handler(
    new Request(`http://x${k.path}`, { method: "POST", headers, body: JSON.stringify(k.body) }),
  );
  const r2 = r.arrayBuffer();
  await r2;
  const dt = performance.now() - t0;
  if (r.status !== 200) {
    throw new Error(`${kind}: ${r.status} ${new TextDecoder().decode(await r2)}`);
  }
  if (kind === "chat with history") {
    history.push({
      role: "assistant",
      content: "A process has its own memory; threads share one.",
    });
    if (history.length >= 20) history = [];
  }
  if (kind === "responses chained") {
    previous = JSON.parse(new TextDecoder().decode(await r2)).id;
    if (++depth >= 10) {
      previous = null;
      depth = 0;
    }
  }
  (times[kind] ??= []).push(dt);
  (stmts[kind] ??= []).push(statements - before);
}
for (let i = 0; i < 20; i++) for (const k of Object.keys(kinds)) await once(k); // warm-up
for (const k of Object.keys(kinds)) {
  times[k] = [];
  stmts[k] = [];
}
for (let block = 0; block < 15; block++) {
  for (const k of Object.keys(kinds)) for (let i = 0; i < 20; i++) await once(k);
}
const p = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))];
const base = p(times.chat, 0.5);
for (const k of Object.keys(kinds)) {
  console.log(
    `${k.padEnd(22)} n ${times[k].length}  p50 ${p(times[k], 0.5).toFixed(2)} ms  p90 ${
      p(times[k], 0.9).toFixed(2)
    } ms  ×chat p50 ${(p(times[k], 0.5) / base).toFixed(3)}  statements/turn ${p(stmts[k], 0.5)}`,
  );
}
await app.close();
await openai.close();
