/**
 * The service's own cost per turn (issue 5): `POST …/execute`, buffered, on a
 * plaintext session, routed to `openai/gpt-4o-mini` whose base URL is a fake
 * Chat Completions server in this process. The overhead is the execute time
 * minus the time of sending the provider the very body the service sent it
 * (replayed from the fake), measured pair by pair; throughput is 32 clients,
 * one session each, with the provider answering in 20 ms.
 */
import { BENCH_MODEL, type ChatProvider, startChatProvider } from "./chat_provider.ts";
import { type BenchRow, type Spread, spread } from "./measure.ts";
import { newSession, postJson, signedIn, startService } from "./service_process.ts";

export const PROVIDER_KEY = "sk-bench-0123456789";

/** One turn's request: a small policy routing everything to the fake's model, remote allowed. */
export const TURN_BODY = {
  input: { text: "please fix the parser" },
  policy: {
    classification: { rules: [{ intent: "edit", keywords: ["fix"] }] },
    routing: { default: { model: `openai/${BENCH_MODEL}` } },
    privacy: { remote: { mode: "allow" } },
  },
};

/** The service started against some Chat Completions server, signed in, with the provider key header. */
export interface ServiceClient {
  url: string;
  /** The service's process id. */
  pid: number;
  headers: Record<string, string>;
  executePath(sessionId: string): string;
  newSession(): Promise<string>;
  /** What the service logged at error level lately. */
  recentErrors(): string[];
  close(): Promise<void>;
}

/** The service pointed at a fake provider in this process. */
export interface TurnService extends ServiceClient {
  provider: ChatProvider;
}

/**
 * Starts the service with `openai` at `providerUrl` (the Chat Completions
 * root, without `/v1`); `databaseUrl` selects PostgreSQL, without it the
 * embedded PGlite store (in memory, unless `env` names a ROUTER_STORAGE_PATH);
 * `runtimeFlags` go to the runtime.
 */
export async function startServiceClient(
  providerUrl: string,
  databaseUrl?: string,
  runtimeFlags: readonly string[] = [],
  env: Record<string, string> = {},
  watch?: (line: string) => void,
  /** Started with the README's own command (service_process.ts README_START). */
  readme = false,
): Promise<ServiceClient> {
  const service = await startService(
    {
      ROUTER_PROVIDERS_OPENAI_BASE_URL: `${providerUrl}/v1`,
      ...(databaseUrl ? { ROUTER_DATABASE_URL: databaseUrl } : {}),
      ...env,
    },
    runtimeFlags,
    watch,
    readme,
  );
  try {
    const url = service.url;
    const headers = {
      ...await signedIn(url),
      "content-type": "application/json",
      "x-router-provider-openai-api-key": PROVIDER_KEY,
    };
    return {
      url,
      pid: service.pid,
      headers,
      executePath: (id) => `/api/v1/sessions/${id}/execute`,
      newSession: () => newSession(url, headers),
      recentErrors: () => service.recentErrors(),
      close: () => service.stop(),
    };
  } catch (error) {
    await service.stop();
    throw error;
  }
}

export async function startTurnService(
  databaseUrl?: string,
  runtimeFlags: readonly string[] = [],
  env: Record<string, string> = {},
  watch?: (line: string) => void,
): Promise<TurnService> {
  const provider = await startChatProvider();
  try {
    const client = await startServiceClient(provider.url, databaseUrl, runtimeFlags, env, watch);
    return {
      ...client,
      provider,
      async close() {
        await client.close();
        await provider.close();
      },
    };
  } catch (error) {
    await provider.close();
    throw error;
  }
}

/** One buffered turn; anything but `completed` is a failure, never a data point. */
export async function executeTurn(s: ServiceClient, sessionId: string): Promise<void> {
  const envelope = await postJson(s.url, s.executePath(sessionId), s.headers, TURN_BODY);
  if (envelope.status !== "completed") {
    throw new Error(`turn ended ${envelope.status}: ${JSON.stringify(envelope)}`);
  }
}

async function callProviderDirectly(s: TurnService, body: string): Promise<void> {
  const response = await fetch(`${s.provider.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${PROVIDER_KEY}`, "content-type": "application/json" },
    body,
  });
  await response.text();
  if (!response.ok) throw new Error(`direct call: ${response.status}`);
}

export interface OverheadRow {
  store: string;
  turns: number;
  execute: Spread;
  direct: Spread;
  added: Spread;
}

/**
 * Concurrency 1. Each turn runs on a fresh session (made outside the timing),
 * so every turn sends the provider the same request and none pays for the
 * history of the ones before it.
 */
export async function measureOverhead(
  s: TurnService,
  store: string,
  turns: number,
): Promise<OverheadRow> {
  s.provider.pace.delayMs = 0;
  const pair = async () => {
    const id = await s.newSession();
    const t0 = performance.now();
    await executeTurn(s, id);
    const t1 = performance.now();
    const body = s.provider.lastBody();
    if (body === undefined) throw new Error("the provider saw no chat request");
    const t2 = performance.now();
    await callProviderDirectly(s, body);
    return { execute: t1 - t0, direct: performance.now() - t2 };
  };
  for (let i = 0; i < 30; i++) await pair(); // warm up
  const execute: number[] = [];
  const direct: number[] = [];
  const added: number[] = [];
  for (let i = 0; i < turns; i++) {
    const p = await pair();
    execute.push(p.execute);
    direct.push(p.direct);
    added.push(p.execute - p.direct);
  }
  return { store, turns, execute: spread(execute), direct: spread(direct), added: spread(added) };
}

/** `clients` loops, one session each, until `total` turns ended; the provider waits `delayMs`. */
export async function measureThroughput(
  s: TurnService,
  name: string,
  o: { total: number; clients: number; delayMs: number },
): Promise<BenchRow> {
  s.provider.pace.delayMs = o.delayMs;
  const sessions = await Promise.all(Array.from({ length: o.clients }, () => s.newSession()));
  await Promise.all(sessions.map((id) => executeTurn(s, id))); // warm up
  const times: number[] = [];
  let started = 0;
  const start = performance.now();
  await Promise.all(sessions.map(async (id) => {
    while (started < o.total) {
      started++;
      const t = performance.now();
      await executeTurn(s, id);
      times.push(performance.now() - t);
    }
  }));
  const total = performance.now() - start;
  s.provider.pace.delayMs = 0;
  const { p50, p99 } = spread(times);
  return { name, iterations: times.length, p50, p99, perSecond: times.length / (total / 1000) };
}

export function printOverhead(title: string, rows: OverheadRow[]): void {
  const f = (ms: number) => ms.toFixed(3);
  console.log(`\n${title}`);
  console.log(
    "| store | turns | execute p50 ms | execute p99 ms | direct p50 ms | direct p99 ms | added p50 ms | added p99 ms |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    console.log(
      `| ${r.store} | ${r.turns} | ${f(r.execute.p50)} | ${f(r.execute.p99)} | ${
        f(r.direct.p50)
      } | ${f(r.direct.p99)} | ${f(r.added.p50)} | ${f(r.added.p99)} |`,
    );
  }
}
