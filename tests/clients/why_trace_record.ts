/**
 * Records `fixtures/traces/why_session.json`, the trace `switchyard why` is tested against
 * (tests/clients/why_golden_test.ts), from a real run: the service in process (embedded store,
 * test clock) with fake OpenAI and Ollama providers, driven through the public API. Run it again
 * when the trace's shape changes, then refresh the golden files:
 *
 *   deno run --allow-all tests/clients/why_trace_record.ts
 *   UPDATE_GOLDEN=1 deno test --allow-all tests/clients/why_golden_test.ts
 *
 * The session's turns: (1) OpenAI answers 503, the turn falls back to the local model, a
 * restricted attachment is left out; (2) a review routed by a rule, with a tool call the client
 * runs and a priced answer; (3) an explicit command with a model override.
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { call, signUp } from "../support/app.ts";
import { createEngineApp, openAiReply } from "../support/engine_app.ts";
import { startFakeProvider } from "../support/fake_provider.ts";

export const WHY_TRACE = new URL(
  "../../fixtures/traces/why_session.json",
  import.meta.url,
);

const POLICY = {
  classification: {
    default_intent: "chat",
    rules: [{ intent: "review", keywords: ["review"] }],
  },
  routing: {
    default: { model: "openai/gpt-4o-mini", fallbacks: ["ollama/qwen3:8b"] },
    rules: [{
      name: "reviews",
      intent: "review",
      model: "openai/gpt-4o-mini",
      effort: "high",
    }],
  },
  tools: { permissions: { file_read: "allow" } },
  privacy: { restricted_paths: ["secrets/**"], remote: { mode: "allow" } },
};

const ATTACHMENTS = {
  files: [
    {
      path: "docs/q3.md",
      content: "Revenue grew.",
      content_hash: "sha256:00",
      required: false,
    },
    {
      path: "secrets/keys.env",
      content: "TOKEN=x",
      content_hash: "sha256:01",
      required: false,
    },
  ],
  instructions: [],
};

async function record(): Promise<unknown[]> {
  const openai = await startFakeProvider();
  const ollama = await startFakeProvider();
  const app = await createEngineApp({ openai: openai.url, ollama: ollama.url });
  try {
    const who = await signUp(app);
    const made = await call(app, "POST", "/api/v1/sessions", {
      token: who.token,
      body: { title: "Quarterly report" },
    });
    const id = made.body.session.id as string;
    const send = (path: string, body: unknown) =>
      call(app, "POST", `/api/v1/sessions/${id}/${path}`, {
        token: who.token,
        headers: { "x-router-provider-openai-api-key": "sk-test-openai" },
        body,
      });
    const execute = (input: Record<string, unknown>) =>
      send("execute", { input, policy: POLICY, attachments: ATTACHMENTS });

    await openai.enqueueFixture("openai", "error_503");
    await ollama.enqueueFixture("ollama", "plain_buffered");
    const first = await execute({ text: "Summarise the quarter in one line." });
    assert.equal(first.body.data.routing.provider, "ollama");

    openai.enqueue(
      openAiReply({
        calls: [{ name: "read_file", arguments: { path: "docs/q3.md" } }],
      }),
    );
    const asked = await execute({ text: "Please review the report." });
    assert.equal(asked.body.status, "awaiting_tool");
    openai.enqueue(
      openAiReply({ text: "The report reads well.", input: 1200, output: 300 }),
    );
    const request = asked.body.data.tool_requests[0];
    const done = await send("continue", {
      type: "tool_results",
      data: {
        results: [{
          call_id: request.call_id,
          content: "Revenue grew.",
          is_error: false,
        }],
      },
    });
    assert.equal(done.body.status, "completed", JSON.stringify(done.body));

    openai.enqueue(openAiReply({ text: "Renamed.", input: 300, output: 40 }));
    const third = await execute({
      text: "Rename the variable",
      command: "edit",
      explicit_model: "openai/gpt-4o",
    });
    assert.equal(third.body.data.routing.model, "gpt-4o");

    const trace = await call(
      app,
      "GET",
      `/api/v1/sessions/${id}/traces?limit=1000`,
      {
        token: who.token,
      },
    );
    return trace.body.trace.events;
  } finally {
    await app.close();
    await openai.close();
    await ollama.close();
  }
}

if (import.meta.main) {
  const events = await record();
  await writeFile(WHY_TRACE, `${JSON.stringify({ events }, null, 2)}\n`);
  console.log(
    `recorded ${events.length} trace events to ${WHY_TRACE.pathname}`,
  );
}
