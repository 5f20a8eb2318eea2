/**
 * `POST …/preview` over real HTTP: the service started as a user starts it
 * (this runtime, its own entry file, an in-memory store), its providers
 * pointed at fake providers that serve the listings, then 1 and 32 clients
 * sending previews as fast as they are answered.
 */
import { startFakeProvider } from "../tests/support/fake_provider.ts";
import { MATCHING_PROMPT, requestBody } from "./decision.ts";
import { type BenchRow, measureConcurrent } from "./measure.ts";
import { postJson as post, signedIn, startService } from "./service_process.ts";

export async function runPreviewHttpBench(total = 2000): Promise<BenchRow[]> {
  const openai = await startFakeProvider();
  const anthropic = await startFakeProvider();
  const ollama = await startFakeProvider();
  const json = { "content-type": "application/json" };
  // Listings are cached for a minute; a few spare answers cover an expiry.
  for (let i = 0; i < 10; i++) {
    openai.enqueue({ status: 200, headers: json, body: { data: [{ id: "gpt-5.4" }] } });
    anthropic.enqueue({
      status: 200,
      headers: json,
      body: { data: [{ id: "claude-sonnet-4-6" }], has_more: false },
    });
    ollama.enqueue({ status: 200, headers: json, body: { models: [{ name: "qwen3:8b" }] } });
  }
  const service = await startService({
    ROUTER_PROVIDERS_OPENAI_BASE_URL: `${openai.url}/v1`,
    ROUTER_PROVIDERS_ANTHROPIC_BASE_URL: anthropic.url,
    ROUTER_PROVIDERS_GEMINI_BASE_URL: `${ollama.url}/unused`,
    ROUTER_PROVIDERS_OLLAMA_BASE_URL: ollama.url,
  });
  try {
    const url = service.url;
    const auth = await signedIn(url);
    const { session } = await post(url, "/api/v1/sessions", auth, { title: "bench" });
    const headers = {
      ...auth,
      "x-router-provider-openai-api-key": "sk-bench",
      "x-router-provider-anthropic-api-key": "sk-bench",
    };
    const small = {
      input: { text: "please fix the parser" },
      policy: {
        classification: { rules: [{ intent: "edit", keywords: ["fix"] }] },
        routing: { default: { model: "openai/gpt-5.4", fallbacks: ["ollama/qwen3:8b"] } },
      },
    };
    const large = requestBody(MATCHING_PROMPT, 50);
    const path = `/api/v1/sessions/${session.id}/preview`;
    const send = (body: unknown) => () => post(url, path, headers, body);
    return [
      await measureConcurrent("POST /preview, small policy, 1 client", total, 1, send(small)),
      await measureConcurrent("POST /preview, small policy, 32 clients", total, 32, send(small)),
      await measureConcurrent(
        "POST /preview, 100+100 rules, 50 files, 1 client",
        total,
        1,
        send(large),
      ),
      await measureConcurrent(
        "POST /preview, 100+100 rules, 50 files, 32 clients",
        total,
        32,
        send(large),
      ),
    ];
  } finally {
    await service.stop();
    await openai.close();
    await anthropic.close();
    await ollama.close();
  }
}
