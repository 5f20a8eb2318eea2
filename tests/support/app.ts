import { after, before } from "node:test";
import { type Config, loadConfig, type ProviderSettings } from "../../src/config.ts";
import type { ModelDescriptor } from "../../src/core/model.ts";
import type { Deps } from "../../src/http/context.ts";
import { createHandler, type Handler } from "../../src/http/handler.ts";
import { memoryLogger } from "../../src/log.ts";
import { registryFromConfig } from "../../src/main.ts";
import type { ListingCache } from "../../src/providers/listing.ts";
import { createModelCache } from "../../src/providers/model_cache.ts";
import { HistoryCache } from "../../src/store/history_cache.ts";
import type { Registry } from "../../src/providers/registry.ts";
import type { WebAssets } from "../../src/http/web_assets.ts";
import { uuidv7 } from "../../src/platform/ids.ts";
import type { Db } from "../../src/store/db.ts";
import type { SupersedeSignals } from "../../src/store/supersede_signal.ts";
import type { Telemetry } from "../../src/telemetry/telemetry.ts";
import { migrate } from "../../src/store/migrate.ts";
import { openPglite } from "../../src/store/pglite_driver.ts";
import { assertMatchesOpenApi } from "./openapi.ts";

/** A settable clock, so token expiry is tested without waiting. */
export interface TestClock {
  now(): Date;
  advance(ms: number): void;
}

export function testClock(start = Date.parse("2026-01-01T00:00:00.000Z")): TestClock {
  let t = start;
  return { now: () => new Date(t), advance: (ms) => void (t += ms) };
}

export interface TestApp {
  handler: Handler;
  db: Db;
  config: Config;
  clock: TestClock;
  logLines: string[];
  /** The instance's provider registry, built from `config.providers`. */
  registry: Registry;
  /** The instance's listing cache, so a test can clear it between cases. */
  listingCache: ListingCache;
  close(): Promise<void>;
}

export interface TestAppOptions {
  db?: Db;
  /**
   * `router.providers` entries, merged over the defaults: point a built-in at a
   * fake provider with `{ openai: { base_url: fake.url + "/v1" } }`, or add an
   * `openai-compat:<name>` instance.
   */
  providers?: Record<string, ProviderSettings>;
  configure?: (config: Config) => void;
  /** Supersede signals shared with other instances (PostgreSQL LISTEN/NOTIFY). */
  signals?: SupersedeSignals;
  /** The built console and API reference, for tests that load them. */
  webAssets?: WebAssets;
  /** Metrics and traces; the store is instrumented through it as main.ts does. */
  telemetry?: Telemetry;
}

/**
 * The whole service in process, on an in-memory PGlite (or the store given). The PGlite is on
 * the test's own thread: a worker per app costs a WASM compile each (seconds under Bun, over
 * hundreds of apps). The store's own thread is covered by the store tests (storesUnderTest) and
 * by every test that starts the service as a process.
 */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const config = await loadConfig([], {});
  config.storagePath = "memory://";
  config.providers = { ...config.providers, ...options.providers };
  options.configure?.(config);
  const registry = registryFromConfig(config);
  const store = options.db ?? await openPglite("memory://");
  await migrate(store);
  const db = options.telemetry?.instrumentDb(store, 1) ?? store;
  const logger = memoryLogger();
  const clock = testClock();
  const listingCache = createModelCache<ModelDescriptor[]>({ now: () => clock.now().getTime() });
  const deps: Deps = {
    db,
    config,
    logger,
    now: clock.now,
    newId: () => uuidv7(clock.now().getTime()),
    registry,
    listingCache,
    historyCache: new HistoryCache(),
    ...(options.signals ? { signals: options.signals } : {}),
    ...(options.webAssets ? { webAssets: options.webAssets } : {}),
    ...(options.telemetry ? { telemetry: options.telemetry } : {}),
  };
  return {
    handler: createHandler(deps),
    db,
    config,
    clock,
    logLines: logger.lines,
    registry,
    listingCache,
    close: () => options.db ? Promise.resolve() : db.close(),
  };
}

export interface CallResult {
  status: number;
  headers: Headers;
  // deno-lint-ignore no-explicit-any
  body: any;
}

export interface CallOptions {
  body?: unknown;
  /** Sent as is, for malformed bodies. */
  rawBody?: BodyInit;
  token?: string;
  headers?: Record<string, string>;
  /** Skip the OpenAPI check (only for responses the document cannot describe, e.g. 404 paths). */
  unchecked?: boolean;
}

/** Sends one request through the handler and checks the response against the OpenAPI document. */
export async function call(
  app: Pick<TestApp, "handler">,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<CallResult> {
  const headers = new Headers(options.headers);
  if (options.token !== undefined) headers.set("authorization", `Bearer ${options.token}`);
  let body: BodyInit | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers.set("content-type", "application/json");
  }
  const response = await app.handler(
    new Request(`http://127.0.0.1${path}`, { method, headers, body }),
  );
  const text = await response.text();
  const parsed = text === "" ? undefined : JSON.parse(text);
  if (!options.unchecked) {
    assertMatchesOpenApi(method, path, {
      status: response.status,
      headers: response.headers,
      body: parsed,
    });
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

export interface Account {
  userId: string;
  apiKey: string;
  token: string;
}

/** Bootstraps a user and signs in. */
export async function signUp(app: Pick<TestApp, "handler">): Promise<Account> {
  const boot = await call(app, "POST", "/api/v1/auth/bootstrap");
  const signIn = await call(app, "POST", "/api/v1/auth/sign-in", {
    headers: { "x-router-api-key": boot.body.api_key },
  });
  return { userId: boot.body.user_id, apiKey: boot.body.api_key, token: signIn.body.token };
}

/** A suite's app with one signed-up user and one session: made before the suite, closed after. */
export function appWithSession(title: string): { app: TestApp; alice: Account; sessionId: string } {
  const suite = {} as { app: TestApp; alice: Account; sessionId: string };
  before(async () => {
    suite.app = await createTestApp();
    suite.alice = await signUp(suite.app);
    const created = await call(suite.app, "POST", "/api/v1/sessions", {
      token: suite.alice.token,
      body: { title },
    });
    suite.sessionId = created.body.session.id;
  });
  after(() => suite.app.close());
  return suite;
}
