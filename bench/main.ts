// Benchmarks, printed as tables: `deno task bench` (or `bun bench/main.ts`).
// In-process handler latency for the foundation endpoints on the embedded store,
// in-process routing decision latency, POST …/preview over real HTTP, and the run
// engine over real HTTP: added latency per turn, turns per second, concurrent streams.
import { createHandler } from "../src/http/handler.ts";
import { loadConfig } from "../src/config.ts";
import { createLogger } from "../src/log.ts";
import { uuidv7 } from "../src/platform/ids.ts";
import { migrate } from "../src/store/migrate.ts";
import { openPglite } from "../src/store/pglite_driver.ts";
import { registryFromConfig } from "../src/main.ts";
import { createModelCache } from "../src/providers/model_cache.ts";
import { HistoryCache } from "../src/store/history_cache.ts";
import { runDecisionBench } from "./decision.ts";
import { measure, printTable } from "./measure.ts";
import { runPreviewHttpBench } from "./preview_http.ts";
import { runTelemetryBench } from "./telemetry_bench.ts";
import { runTurnBenchmarks } from "./turns_bench.ts";
import { BENCH_RATE_LIMITS } from "./service_process.ts";

const config = await loadConfig([], BENCH_RATE_LIMITS);
const db = await openPglite("memory://");
await migrate(db);
const handler = createHandler({
  db,
  config,
  logger: createLogger(() => {}),
  now: () => new Date(),
  newId: () => uuidv7(),
  registry: registryFromConfig(config),
  listingCache: createModelCache(),
  historyCache: new HistoryCache(),
});
const send = async (
  method: string,
  path: string,
  init: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
) => {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  const r = await handler(
    new Request(`http://bench${path}`, {
      method,
      headers,
      body: init.body ? JSON.stringify(init.body) : undefined,
    }),
  );
  return await r.json();
};

const boot = await send("POST", "/api/v1/auth/bootstrap");
const { token } = await send("POST", "/api/v1/auth/sign-in", {
  headers: { "x-router-api-key": boot.api_key },
});
for (let i = 0; i < 200; i++) {
  await send("POST", "/api/v1/sessions", { token, body: { title: `session ${i}` } });
}
const { session } = await send("POST", "/api/v1/sessions", { token, body: { title: "target" } });

const rows = [
  await measure("GET /status", 2000, () => send("GET", "/status")),
  await measure(
    "GET /auth/me (token check)",
    1000,
    () => send("GET", "/api/v1/auth/me", { token }),
  ),
  await measure(
    "GET /sessions/{id}",
    1000,
    () => send("GET", `/api/v1/sessions/${session.id}`, { token }),
  ),
  await measure("GET /sessions (201 rows)", 300, () => send("GET", "/api/v1/sessions", { token })),
  await measure(
    "POST /sessions",
    500,
    () => send("POST", "/api/v1/sessions", { token, body: { title: "x" } }),
  ),
];
await db.close();

printTable("In-process handler on PGlite (memory), one client", rows);

printTable(
  "Routing decision in process (previewTurn): 100 classification rules, 100 routing rules, 50 attachments; target p99 < 0.5 ms",
  runDecisionBench(),
);
printTable(
  "POST /api/v1/sessions/{id}/preview over HTTP (the service on this runtime, memory store, listings from fake providers, cached)",
  await runPreviewHttpBench(),
);
await runTurnBenchmarks();
await runTelemetryBench();
