/**
 * What the console's browser test looks at, made through the public API of a service whose
 * providers are fakes: a session with a turn that fell back from OpenAI (HTTP 503) to Ollama and
 * a priced review turn on OpenAI of two model calls with a file read between them, a few other
 * sessions (one archived, one encrypted), and the figures the pages must show for them.
 */
import assert from "node:assert/strict";
import { type Account, call, type TestApp } from "../support/app.ts";
import { openAiReply } from "../support/engine_app.ts";
import type { FakeProvider } from "../support/fake_provider.ts";
import { sealingClient } from "../support/sealing_client.ts";

export const OPENAI_KEY = "sk-test-openai-console";
/** The encrypted session's key, as a person would paste it into the page (base64). */
export const SEALED_KEY = new Uint8Array(32).map((_, i) => i * 7 + 3);
export const SEALED_REPLY = "Ship it on Friday.";

export const POLICY = {
  classification: { default_intent: "chat", rules: [{ intent: "review", keywords: ["review"] }] },
  routing: {
    default: { model: "openai/gpt-4o-mini", fallbacks: ["ollama/qwen3:8b"] },
    rules: [{ name: "reviews", intent: "review", model: "openai/gpt-4o-mini" }],
  },
  tools: { permissions: { file_read: "allow" } },
  privacy: { restricted_paths: ["secrets/**"], remote: { mode: "allow" } },
};

const ATTACHMENTS = {
  files: [
    { path: "docs/q3.md", content: "Revenue grew.", content_hash: "sha256:00", required: false },
    { path: "secrets/keys.env", content: "TOKEN=x", content_hash: "sha256:01", required: false },
  ],
  instructions: [],
};

export interface ConsoleData {
  sessionId: string;
  title: string;
  /** Usage of the session as the report must total it. */
  totalTokens: number;
  totalCost: string;
  traceEvents: number;
}

async function createSession(app: TestApp, who: Account, body: Record<string, unknown>) {
  const r = await call(app, "POST", "/api/v1/sessions", { token: who.token, body });
  assert.equal(r.status, 201);
  return r.body.session.id as string;
}

export async function makeConsoleData(
  app: TestApp,
  who: Account,
  fakes: { openai: FakeProvider; ollama: FakeProvider },
): Promise<ConsoleData> {
  const title = "Quarterly report review";
  const sessionId = await createSession(app, who, { title, scope: "work" });
  await createSession(app, who, { title: "Grocery list", scope: "home" });
  const sealedId = await createSession(app, who, { title: "Sealed notes", key_id: "notes-key-1" });
  const old = await createSession(app, who, { title: "Old quarterly draft", scope: "work" });
  await call(app, "PUT", `/api/v1/sessions/${old}`, {
    token: who.token,
    body: { archived: true },
  });

  const execute = (text: string) =>
    call(app, "POST", `/api/v1/sessions/${sessionId}/execute`, {
      token: who.token,
      headers: { "x-router-provider-openai-api-key": OPENAI_KEY },
      body: { input: { text }, policy: POLICY, attachments: ATTACHMENTS },
    });
  // Turn 1: OpenAI answers 503, so the turn falls back to the local model.
  await fakes.openai.enqueueFixture("openai", "error_503");
  await fakes.ollama.enqueueFixture("ollama", "plain_buffered");
  const first = await execute("Summarise the quarter in one line.");
  assert.equal(first.body.data.routing.provider, "ollama");
  // Turn 2: a review of two model calls: the first asks to read a file (24 × 0.15 / 10^6 +
  // 7 × 0.6 / 10^6 = 0.0000078), the second answers from it (1200 × 0.15 / 10^6 + 300 × 0.6 /
  // 10^6 = 0.00036): one prompt, one turn, 0.0003678 in all.
  fakes.openai.enqueue(
    openAiReply({ calls: [{ name: "read_file", arguments: { path: "docs/q3.md" } }] }),
  );
  const asked = await execute("Please review the report.");
  assert.equal(asked.body.status, "awaiting_tool", JSON.stringify(asked.body));
  fakes.openai.enqueue(openAiReply({ text: "The report reads well.", input: 1200, output: 300 }));
  const second = await call(app, "POST", `/api/v1/sessions/${sessionId}/continue`, {
    token: who.token,
    headers: { "x-router-provider-openai-api-key": OPENAI_KEY },
    body: {
      type: "tool_results",
      data: {
        results: [{
          call_id: asked.body.data.tool_requests[0].call_id,
          content: "Revenue grew.",
          is_error: false,
        }],
      },
    },
  });
  assert.equal(second.body.status, "completed", JSON.stringify(second.body));
  assert.equal(second.body.data.routing.provider, "openai");

  // An encrypted turn: the client seals its prompt and everything the service hands back.
  const sealer = await sealingClient("notes-key-1", SEALED_KEY);
  fakes.openai.enqueue(openAiReply({ text: SEALED_REPLY }));
  const prompt = "When do we ship?";
  const sealedTurn = await call(app, "POST", `/api/v1/sessions/${sealedId}/execute`, {
    token: who.token,
    headers: { "x-router-provider-openai-api-key": OPENAI_KEY },
    body: { input: { text: prompt, ciphertext: await sealer.seal(prompt) }, policy: POLICY },
  });
  assert.equal(sealedTurn.body.status, "completed");
  const stored = await call(app, "POST", `/api/v1/sessions/${sealedId}/continue`, {
    token: who.token,
    body: {
      type: "sealed",
      data: { encrypted: await sealer.sealAll(sealedTurn.body.data.to_encrypt) },
    },
  });
  assert.equal(stored.status, 200);

  const usage = await call(app, "GET", `/api/v1/sessions/${sessionId}/usage`, {
    token: who.token,
  });
  const trace = await call(app, "GET", `/api/v1/sessions/${sessionId}/traces?limit=1000`, {
    token: who.token,
  });
  return {
    sessionId,
    title,
    totalTokens: usage.body.total.total_tokens,
    totalCost: usage.body.total.estimated_cost,
    traceEvents: trace.body.trace.events.length,
  };
}
