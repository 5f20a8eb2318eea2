/**
 * What telemetry costs on the hot paths, in process: the same buffered turn
 * (execute against a provider that answers at once) and the same preview,
 * sent to three handlers sharing one PGlite store: telemetry off, metrics on
 * (the default), and metrics plus tracing exported to a local OTLP receiver.
 * The variants take turns call by call, so the store's growth and the
 * machine's noise fall on all three alike; the ratio to "off" is the result.
 */
import { type Account, createTestApp, signUp, type TestApp } from "../tests/support/app.ts";
import { startOtlpReceiver } from "../tests/support/otlp_receiver.ts";
import { openPglite } from "../src/store/pglite_driver.ts";
import { createTelemetry, type Telemetry } from "../src/telemetry/telemetry.ts";
import { BENCH_MODEL, startChatProvider } from "./chat_provider.ts";
import { type BenchRow, measureSync, percentile, printTable } from "./measure.ts";
import type { TurnDecision } from "../src/core/turn_decision.ts";
import { NO_TELEMETRY } from "../src/telemetry/telemetry.ts";
import { TURN_BODY } from "./turn_http.ts";

interface Variant {
  name: string;
  app: TestApp;
  telemetry: Telemetry;
  alice: Account;
  session: string;
  times: number[];
}

async function newSession(app: TestApp, alice: Account): Promise<string> {
  const r = await app.handler(
    new Request("http://bench/api/v1/sessions", {
      method: "POST",
      headers: { authorization: `Bearer ${alice.token}`, "content-type": "application/json" },
      body: JSON.stringify({ title: "bench" }),
    }),
  );
  return (await r.json()).session.id;
}

async function send(v: Variant, path: string, body: unknown): Promise<void> {
  const response = await v.app.handler(
    new Request(`http://bench${path}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${v.alice.token}`,
        "content-type": "application/json",
        "x-router-provider-openai-api-key": "sk-bench",
      },
      body: JSON.stringify(body),
    }),
  );
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
  await response.arrayBuffer();
}

/**
 * Calls `fn` for each variant in turn, `iterations` times, timing each call
 * (not `prepare`, whose result it is given).
 */
async function interleaved<P>(
  variants: Variant[],
  iterations: number,
  prepare: (v: Variant) => Promise<P>,
  fn: (v: Variant, prepared: P) => Promise<void>,
): Promise<BenchRow[]> {
  for (const v of variants) {
    v.times = [];
    for (let i = 0; i < 30; i++) await fn(v, await prepare(v)); // warm up
  }
  for (let i = 0; i < iterations; i++) {
    for (const v of i % 2 === 0 ? variants : [...variants].reverse()) {
      const prepared = await prepare(v);
      const t = performance.now();
      await fn(v, prepared);
      v.times.push(performance.now() - t);
    }
  }
  return variants.map((v) => {
    const sorted = [...v.times].sort((a, b) => a - b);
    const total = v.times.reduce((a, b) => a + b, 0);
    return {
      name: v.name,
      iterations,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      perSecond: iterations / (total / 1000),
    };
  });
}

function printRatios(title: string, rows: BenchRow[]): void {
  const base = rows[0];
  console.log(`\n${title}`);
  console.log(
    "| telemetry | iterations | p50 ms | p99 ms | per second | p50 vs off | mean vs off |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    console.log(
      `| ${r.name} | ${r.iterations} | ${r.p50.toFixed(3)} | ${r.p99.toFixed(3)} | ${
        Math.round(r.perSecond)
      } | ${(r.p50 / base.p50).toFixed(3)} | ${(base.perSecond / r.perSecond).toFixed(3)} |`,
    );
  }
}

/** The hooks of one turn's request, as the handler and engine call them, without the work between. */
function hooksOfOneTurn(telemetry: Telemetry, response: Response): () => void {
  const model = { provider: "openai", model: BENCH_MODEL };
  const decision = {
    classification: { intent: "edit" },
    routing: { model, rule: null, override_used: false, fallback_used: false },
  } as unknown as TurnDecision;
  const decided = { ok: true as const, value: decision };
  const reply = {
    usage: { inputTokens: 24, outputTokens: 7 },
    stopReason: "stop",
    interrupted: false,
  };
  const request = new Request("http://bench/api/v1/sessions/x/execute", { method: "POST" });
  return () => {
    const probe = telemetry.request(request);
    probe.route = "/api/v1/sessions/:session_id/execute";
    telemetry.runClaimed("execute", false);
    const turn = telemetry.turn("trace", false);
    turn.routing().end(decided);
    const call = turn.call(model, false, false);
    call.firstDelta();
    call.end(reply);
    turn.usage(decision, reply.usage, "0.0000078", false);
    turn.end("completed");
    probe.end("POST", response);
  };
}

export async function runTelemetryBench(turns = 400, previews = 1500): Promise<void> {
  const metricsOnly = await createTelemetry({ metrics: true });
  const response = new Response(null, { status: 200 });
  printTable("Telemetry hooks of one turn (request, claim, routing, call, usage, end), no I/O", [
    measureSync("off (no-op)", 200_000, hooksOfOneTurn(NO_TELEMETRY, response)),
    measureSync("metrics (default)", 200_000, hooksOfOneTurn(metricsOnly, response)),
  ]);
  const provider = await startChatProvider();
  const receiver = await startOtlpReceiver();
  const db = await openPglite("memory://");
  const setups: [string, Promise<Telemetry> | null][] = [
    ["off", null],
    ["metrics (default)", createTelemetry({ metrics: true })],
    [
      "metrics + OTLP traces",
      createTelemetry({
        metrics: true,
        tracing: { endpoint: receiver.url, serviceName: "bench", batchDelayMs: 200 },
      }),
    ],
  ];
  const variants: Variant[] = [];
  let alice: Account | undefined;
  for (const [name, made] of setups) {
    const telemetry = made === null ? undefined : await made;
    const app = await createTestApp({
      db,
      telemetry,
      providers: { openai: { base_url: `${provider.url}/v1`, models: [BENCH_MODEL] } },
      // Thousands of requests from one user within a minute: the per-user limit would refuse them.
      configure: (config) => {
        config.limits.rate.enabled = false;
      },
    });
    // One user in the shared store: bootstrap works once.
    alice ??= await signUp(app);
    variants.push({
      name,
      app,
      telemetry: telemetry ?? (await createTelemetry({ metrics: false })),
      alice,
      session: await newSession(app, alice),
      times: [],
    });
  }
  try {
    // A new session per turn, so history does not grow under the later calls.
    const turnRows = await interleaved(
      variants,
      turns,
      (v) => newSession(v.app, v.alice),
      (v, session) => send(v, `/api/v1/sessions/${session}/execute`, TURN_BODY),
    );
    const previewRows = await interleaved(
      variants,
      previews,
      (v) => Promise.resolve(v.session),
      (v, session) => send(v, `/api/v1/sessions/${session}/preview`, TURN_BODY),
    );
    printRatios(
      "Telemetry cost in process, PGlite (memory): buffered execute, provider answers at once",
      turnRows,
    );
    printRatios("Telemetry cost in process: POST /preview, small policy", previewRows);
  } finally {
    for (const v of variants) await v.telemetry.close();
    await db.close();
    await provider.close();
    await receiver.close();
  }
}
