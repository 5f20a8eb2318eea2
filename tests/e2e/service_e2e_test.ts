import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { createScratchDatabase } from "../support/databases.ts";
import { startOtlpReceiver } from "../support/otlp_receiver.ts";
import { scrape } from "../support/prometheus.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));
const onBun = process.versions.bun !== undefined;
const runtime = onBun ? "Bun" : "Deno";

/** The service as a user starts it, under the runtime running this test, on a free port. */
interface Running {
  url: string;
  /** The metrics-only listener, when one is configured. */
  metricsUrl?: string;
  /** Sends SIGTERM and resolves with what the service logged once it has exited. */
  stop(): Promise<string>;
}

function startService(env: Record<string, string>): Promise<Running> {
  const args = onBun ? ["src/runtime/bun.ts"] : ["run", "--allow-all", "src/runtime/deno.ts"];
  const base = { ...process.env };
  delete base.DATABASE_URL;
  delete base.ROUTER_CONFIG;
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: root,
    env: { ...base, PORT: "0", ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`service did not start within 60 s:\n${output}`));
    }, 60_000);
    child.stderr!.on("data", (chunk: Uint8Array) => {
      output += new TextDecoder().decode(chunk);
      const line = output.split("\n").find((l) => l.includes('"msg":"listening"'));
      if (!line) return;
      clearTimeout(timer);
      const listening = JSON.parse(line);
      resolve({
        url: listening.url,
        metricsUrl: listening.metrics_url,
        stop: () =>
          new Promise((done) => {
            child.once("exit", () => done(output));
            child.kill("SIGTERM");
          }),
      });
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code}:\n${output}`));
    });
  });
}

async function http(
  base: string,
  method: string,
  path: string,
  init: { token?: string; headers?: Record<string, string>; body?: unknown } = {},
) {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: response.status, body: await response.json() };
}

/** A handler that sends the request to a served address instead. */
const served = (base: string) => (request: Request) =>
  fetch(`${base}${new URL(request.url).pathname}`, { headers: request.headers });

/** bootstrap → sign-in → sessions → sign-out over real HTTP, then a restart on the same data. */
async function fullFlow(env: Record<string, string>) {
  let service = await startService(env);
  const status = await http(service.url, "GET", "/status");
  assert.deepEqual(status, { status: 200, body: { status: "ok", version: "0.1.0-alpha.1" } });
  // The console is served as built (read from web/, or embedded by the Bun entry).
  const page = await fetch(`${service.url}/console`);
  assert.equal(page.status, 200);
  assert.equal(page.headers.get("content-type"), "text/html; charset=utf-8");
  const script = /src="(\/console\/app-[A-Z0-9]+\.js)"/.exec(await page.text())?.[1];
  const asset = await fetch(`${service.url}${script}`);
  assert.equal(asset.headers.get("cache-control"), "public, max-age=31536000, immutable");
  assert.ok((await asset.text()).length > 0);

  const boot = await http(service.url, "POST", "/api/v1/auth/bootstrap");
  assert.equal(boot.status, 201);
  const signIn = await http(service.url, "POST", "/api/v1/auth/sign-in", {
    headers: { "X-Router-Api-Key": boot.body.api_key },
  });
  assert.equal(signIn.status, 200);
  const token = signIn.body.token;
  assert.deepEqual((await http(service.url, "GET", "/api/v1/auth/me", { token })).body, {
    user_id: boot.body.user_id,
  });

  const created = await http(service.url, "POST", "/api/v1/sessions", {
    token,
    body: { title: "E2E", scope: "e2e" },
  });
  assert.equal(created.status, 201);
  const id = created.body.session.id;
  const renamed = await http(service.url, "PUT", `/api/v1/sessions/${id}`, {
    token,
    body: { title: "E2E renamed" },
  });
  assert.equal(renamed.body.session.title, "E2E renamed");
  const listed = await http(service.url, "GET", "/api/v1/sessions?scope=e2e", { token });
  assert.deepEqual(listed.body.sessions.map((s: { id: string }) => s.id), [id]);
  const out = await http(service.url, "POST", "/api/v1/auth/sign-out", { token });
  assert.deepEqual(out.body, { revoked: true });
  assert.equal(
    (await http(service.url, "GET", "/api/v1/auth/me", { token })).body.error.code,
    "token_revoked",
  );
  // Metrics are on by default, open on the API's address, and saw this flow.
  const metrics = await scrape(served(service.url));
  const status200 = { route: "/status", method: "GET", status: "200" };
  assert.equal(metrics.value("switchyard_http_requests_total", status200), 1);
  const driver = env.DATABASE_URL ? "postgres" : "pglite";
  // The PostgreSQL run sets router.database.max_connections to 6.
  assert.equal(metrics.value("switchyard_db_pool_max", { driver }), driver === "postgres" ? 6 : 1);
  assert.ok(metrics.count("switchyard_db_query_duration_seconds", { driver, kind: "select" }) > 0);
  assert.equal(metrics.text.includes(id), false);
  // A clean shutdown: the signal handler ran (how the exit is reported differs by runtime).
  const logged = await service.stop();
  assert.match(logged, /"msg":"shutting down"/);
  assert.doesNotMatch(logged, /"level":"error"/);

  // Everything survives a restart of the service.
  service = await startService(env);
  try {
    const again = await http(service.url, "POST", "/api/v1/auth/sign-in", {
      headers: { "X-Router-Api-Key": boot.body.api_key },
    });
    assert.equal(again.status, 200);
    assert.equal(
      (await http(service.url, "GET", "/api/v1/auth/me", { token })).body.error.code,
      "token_revoked",
    );
    const detail = await http(service.url, "GET", `/api/v1/sessions/${id}`, {
      token: again.body.token,
    });
    assert.equal(detail.status, 200);
    assert.equal(detail.body.session.title, "E2E renamed");
    const deleted = await http(service.url, "DELETE", `/api/v1/sessions/${id}`, {
      token: again.body.token,
    });
    assert.deepEqual(deleted.body, { deleted: true });
  } finally {
    await service.stop();
  }
}

describe(`the service under ${runtime}`, () => {
  const cleanups: (() => Promise<void>)[] = [];
  after(async () => {
    for (const c of cleanups) await c();
  });

  test("full flow on the embedded store in a data directory, surviving a restart", async () => {
    const dir = await mkdtemp(join(tmpdir(), "switchyard-e2e-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    await fullFlow({ ROUTER_STORAGE_PATH: join(dir, "data") });
  });

  if (process.env.DATABASE_URL) {
    test("full flow on PostgreSQL, surviving a restart", async () => {
      const scratch = await createScratchDatabase(process.env.DATABASE_URL!);
      cleanups.push(() => scratch.drop());
      await fullFlow({ DATABASE_URL: scratch.url, ROUTER_DATABASE_MAX_CONNECTIONS: "6" });
    });
  }

  test("the runtime entry hands the client address to the per-address limit", async () => {
    // One request a minute refills the bucket: however slow the machine, the third is refused.
    const service = await startService({
      ROUTER_STORAGE_PATH: "memory://",
      ROUTER_LIMITS_RATE_ANONYMOUS_BURST: "2",
      ROUTER_LIMITS_RATE_ANONYMOUS_PER_MINUTE: "1",
    });
    try {
      const statuses = [];
      let refused: Response | undefined;
      for (let i = 0; i < 3; i++) {
        const r = await fetch(`${service.url}/api/v1/auth/bootstrap`, { method: "POST" });
        statuses.push(r.status);
        if (r.status === 429) refused = r;
        else await r.body?.cancel();
      }
      assert.deepEqual(statuses, [201, 201, 429]);
      assert.match(refused!.headers.get("retry-after")!, /^[1-9][0-9]*$/);
      assert.equal((await refused!.json()).error.code, "rate_limited");
    } finally {
      await service.stop();
    }
  });

  test("metrics on their own address behind a token, traces to OTEL_EXPORTER_OTLP_ENDPOINT", async () => {
    const receiver = await startOtlpReceiver();
    cleanups.push(() => receiver.close());
    const token = "e2e-metrics-token-0123456789";
    const service = await startService({
      ROUTER_STORAGE_PATH: "memory://",
      ROUTER_TELEMETRY_METRICS_LISTEN: "127.0.0.1:0",
      ROUTER_TELEMETRY_METRICS_TOKEN: token,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: "switchyard-e2e",
    });
    let logged = "";
    try {
      assert.ok(service.metricsUrl?.endsWith("/metrics"), service.metricsUrl);
      const metricsBase = service.metricsUrl!.slice(0, -"/metrics".length);
      assert.equal((await http(service.url, "GET", "/metrics")).status, 404);
      assert.equal((await http(metricsBase, "GET", "/metrics")).status, 401);
      assert.equal((await http(metricsBase, "GET", "/status")).status, 404);
      assert.equal((await http(service.url, "GET", "/status")).status, 200);
      const metrics = await scrape(served(metricsBase), { authorization: `Bearer ${token}` });
      assert.equal(
        metrics.value("switchyard_http_requests_total", {
          route: "/metrics",
          method: "GET",
          status: "404",
        }),
        1,
      );
    } finally {
      logged = await service.stop();
    }
    assert.equal(logged.includes(token), false, "the metrics token is never logged");
    // Shutting down flushed the spans: the /status request is there, under our service name.
    const status = receiver.spans.find((s) => s.name === "GET /status");
    assert.ok(status, `spans: ${receiver.spans.map((s) => s.name).join(", ")}`);
    assert.equal(status.resource["service.name"], "switchyard-e2e");
    assert.equal(status.attributes["http.response.status_code"], 200);
  });

  test("a bad configuration stops start-up with one line naming the key", async () => {
    await assert.rejects(startService({ ROUTER_PORT: "seventy" }), (e: Error) => {
      assert.match(e.message, /exited with 1/);
      assert.match(
        e.message,
        /invalid configuration: router\.port: expected an integer from 0 to 65535, got "seventy"/,
      );
      return true;
    });
  });
});
