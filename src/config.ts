import { readFile } from "node:fs/promises";
import { parse as parseToml } from "smol-toml";
import { checkProviderId } from "./core/model_reference.ts";
import { type ModelDeclaration, readModelDeclarations } from "./providers/model_declarations.ts";

/**
 * Configuration: one TOML file plus environment overrides (DESIGN.md). Every
 * key `router.a.b` can be set by `ROUTER_A_B`; a variable wins over the file.
 * Any problem stops start-up with one line naming the key.
 */

export interface ProviderSettings {
  base_url?: string;
  local?: boolean;
  display_name?: string;
  /** Model ids, or tables declaring a model's figures (providers/model_declarations.ts). */
  models?: ModelDeclaration[];
}

export interface Config {
  host: string;
  port: number;
  databaseUrl?: string;
  /** Connections an instance keeps to PostgreSQL (postgres_driver.ts). */
  databaseMaxConnections: number;
  /** How long a statement on PostgreSQL may take before the request gives up on it. */
  databaseStatementTimeoutMs: number;
  storagePath: string;
  /** Whether the embedded store's commits reach the disk before they are acknowledged. */
  storageFsync: boolean;
  auth: {
    tokenTtlSeconds: number;
    bootstrapEnabled: boolean;
    /** When set, `/api/v1/admin/*` answers to `Authorization: Bearer <this>` (decisions.md §13). */
    operatorToken?: string;
  };
  limits: {
    maxRequestBodyBytes: number;
    providerTimeoutMs: number;
    rate: RateLimits;
    shutdownGraceMs: number;
  };
  /** Browser origins answered with CORS headers; none unless the operator lists them. */
  http: { corsOrigins: string[] };
  /** Keyed by `openai`, `anthropic`, `gemini`, `ollama` or `openai-compat:<name>`. */
  providers: Record<string, ProviderSettings>;
  telemetry: TelemetrySettings;
}

export interface TelemetrySettings {
  /** `GET /metrics` and the metric hooks. */
  metricsEnabled: boolean;
  /** When set, `GET /metrics` wants `Authorization: Bearer <token>`. */
  metricsToken?: string;
  /** When set, `/metrics` is served only on this address, not on the API's. */
  metricsListen?: { host: string; port: number };
  /** OTLP/HTTP base URL; traces are off without it. */
  otlpEndpoint?: string;
  serviceName: string;
}

/**
 * Service-side rate limits (token buckets, per instance): per client address on
 * bootstrap and sign-in, per user on the authenticated endpoints.
 */
export interface RateLimits {
  enabled: boolean;
  anonymousPerMinute: number;
  anonymousBurst: number;
  userPerMinute: number;
  userBurst: number;
  /** Take the client address from the last `X-Forwarded-For` entry (set by a proxy in front). */
  trustForwardedFor: boolean;
}

export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(readonly key: string, problem: string) {
    super(`invalid configuration: ${key}: ${problem}`);
  }
}

type Kind =
  | "string"
  | "url"
  | "port"
  | "positive_int"
  | "boolean"
  | "origins"
  | "secret"
  | "listen";

/**
 * Few connections, each carrying several statements at once when all are busy
 * (postgres.js pipelines them): at 32 and 64 clients on a 2-core machine the
 * server spent 1.0–1.3 ms of CPU per turn with 4 connections against 1.2–1.7 ms
 * with postgres.js's default of 10, and the service did up to a quarter more
 * turns a second. A statement waits behind a slow one only once every
 * connection is busy.
 */
export const DEFAULT_DATABASE_CONNECTIONS = 4;

/**
 * The slowest legitimate statements measured on PostgreSQL (this 2-core machine,
 * shared with other work): a whole trace of a 300- to 1,000-turn session read in
 * one page, 0.6–0.7 s; the migrations in one transaction, 0.17 s; everything else
 * under 0.1 s, p99 under 10 ms. Ten seconds leaves a margin of over ten times the
 * slowest, and still answers well before the 30–60 s after which load balancers
 * and clients commonly give up on their own.
 */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 10_000;

/**
 * The embedded store syncs each commit to the disk before a turn is answered,
 * as a database is expected to. Measured on a 2-core virtual machine whose
 * disk syncs in about 0.5 ms: a commit took 0.73 ms against 0.49 ms without,
 * and the service's turns a second at 32 clients and its added latency at one
 * client did not differ beyond the noise of a shared machine (medians of four
 * alternated rounds: 213 against 197 turns/s, 8.5 against 8.9 ms). A turn
 * makes about two syncs (424 for 200 turns and 20 new sessions, by strace),
 * so a disk that syncs in 10 ms would add about 20 ms a turn.
 */
export const DEFAULT_STORAGE_FSYNC = true;

/** A metrics or operator token must be long enough not to be guessed. */
export const MIN_METRICS_TOKEN_LENGTH = 16;

const SCALAR_KEYS: Record<string, Kind> = {
  "router.host": "string",
  "router.port": "port",
  "router.database.url": "url",
  "router.database.max_connections": "positive_int",
  "router.database.statement_timeout_ms": "positive_int",
  "router.storage.path": "string",
  "router.storage.fsync": "boolean",
  "router.auth.token_ttl_seconds": "positive_int",
  "router.auth.bootstrap_enabled": "boolean",
  "router.auth.operator_token": "secret",
  "router.limits.max_request_body_bytes": "positive_int",
  "router.limits.provider_timeout_ms": "positive_int",
  "router.limits.shutdown_grace_ms": "positive_int",
  "router.limits.rate.enabled": "boolean",
  "router.limits.rate.anonymous_per_minute": "positive_int",
  "router.limits.rate.anonymous_burst": "positive_int",
  "router.limits.rate.user_per_minute": "positive_int",
  "router.limits.rate.user_burst": "positive_int",
  "router.limits.rate.trust_forwarded_for": "boolean",
  "router.http.cors_origins": "origins",
  "router.telemetry.metrics_enabled": "boolean",
  "router.telemetry.metrics_token": "secret",
  "router.telemetry.metrics_listen": "listen",
  "router.telemetry.otlp_endpoint": "url",
  "router.telemetry.service_name": "string",
};

const BUILT_IN_PROVIDERS = ["openai", "anthropic", "gemini", "ollama"] as const;

const PROVIDER_KEYS: Record<string, Kind | "models"> = {
  base_url: "url",
  local: "boolean",
  display_name: "string",
  models: "models",
};

function describe(value: unknown): string {
  return typeof value === "string" ? `"${value}"` : JSON.stringify(value) ?? String(value);
}

/** Checks one value; values from the environment arrive as strings and are converted here. */
function coerce(key: string, kind: Kind, value: unknown, fromEnv: boolean): unknown {
  const bad = (expected: string) =>
    new ConfigError(key, `expected ${expected}, got ${describe(value)}`);
  switch (kind) {
    case "string":
      if (typeof value !== "string" || value.trim() === "") throw bad("a non-empty string");
      return value;
    case "url": {
      if (typeof value !== "string" || !URL.canParse(value)) throw bad("a URL");
      const protocol = new URL(value).protocol;
      if (key === "router.database.url" && protocol !== "postgres:" && protocol !== "postgresql:") {
        throw bad("a postgres:// URL");
      }
      if (key !== "router.database.url" && protocol !== "http:" && protocol !== "https:") {
        throw bad("an http:// or https:// URL");
      }
      return value;
    }
    case "secret":
      // Never quote the value: it is a credential.
      if (typeof value !== "string" || value.length < MIN_METRICS_TOKEN_LENGTH) {
        throw new ConfigError(
          key,
          `expected a string of at least ${MIN_METRICS_TOKEN_LENGTH} characters`,
        );
      }
      return value;
    case "listen":
      return listenAddress(key, value);
    case "boolean":
      if (typeof value === "boolean") return value;
      if (fromEnv && (value === "true" || value === "1")) return true;
      if (fromEnv && (value === "false" || value === "0")) return false;
      throw bad("true or false");
    case "port":
    case "positive_int": {
      const n = fromEnv && typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value;
      const min = kind === "port" ? 0 : 1;
      const max = kind === "port" ? 65535 : Number.MAX_SAFE_INTEGER;
      if (typeof n !== "number" || !Number.isInteger(n) || n < min || n > max) {
        throw bad(kind === "port" ? "an integer from 0 to 65535" : "a positive integer");
      }
      return n;
    }
    case "origins":
      return origins(key, value, fromEnv);
  }
}

/**
 * A list of exact origins (`https://app.example.com`, `http://localhost:5173`);
 * from a variable, comma-separated. No wildcard: each origin is the operator's word.
 */
function origins(key: string, value: unknown, fromEnv: boolean): string[] {
  const list = fromEnv && typeof value === "string"
    ? value.split(",").map((o) => o.trim()).filter((o) => o !== "")
    : value;
  const expected = 'expected a list of origins such as "https://app.example.com"';
  if (!Array.isArray(list)) throw new ConfigError(key, `${expected}, got ${describe(value)}`);
  for (const origin of list) {
    const url = typeof origin === "string" && URL.canParse(origin) ? new URL(origin) : undefined;
    if (url === undefined || url.origin !== origin || !["http:", "https:"].includes(url.protocol)) {
      throw new ConfigError(
        key,
        `${expected} (scheme, host and port only), got ${describe(origin)}`,
      );
    }
  }
  return list;
}

/** `host:port` (a bracketed IPv6 host too); port 0 asks for any free port. */
function listenAddress(key: string, value: unknown): { host: string; port: number } {
  const match = typeof value === "string"
    ? /^(\[[0-9a-fA-F:.]+\]|[^:\s]+):(\d{1,5})$/.exec(value)
    : null;
  const port = match === null ? NaN : Number(match[2]);
  if (match === null || port > 65535) {
    throw new ConfigError(key, `expected host:port, e.g. "127.0.0.1:9464", got ${describe(value)}`);
  }
  return { host: match[1].replace(/^\[(.*)\]$/, "$1"), port };
}

/** Flattens the file's `router` table into dotted keys, rejecting unknown keys. */
function flattenFile(doc: Record<string, unknown>): Map<string, unknown> {
  const flat = new Map<string, unknown>();
  for (const top of Object.keys(doc)) {
    if (top !== "router") throw new ConfigError(top, "unknown key");
  }
  const walk = (prefix: string, table: unknown) => {
    if (typeof table !== "object" || table === null || Array.isArray(table)) {
      throw new ConfigError(prefix, "expected a table");
    }
    for (const [k, v] of Object.entries(table)) {
      const key = `${prefix}.${k}`;
      if (prefix === "router.providers") {
        walkProvider(key, k, v, flat);
      } else if (key in SCALAR_KEYS) {
        flat.set(key, v);
      } else if (
        Object.keys(SCALAR_KEYS).some((s) => s.startsWith(`${key}.`)) || key === "router.providers"
      ) {
        walk(key, v);
      } else {
        throw new ConfigError(key, "unknown key");
      }
    }
  };
  if (doc.router !== undefined) walk("router", doc.router);
  return flat;
}

function walkProvider(key: string, id: string, table: unknown, flat: Map<string, unknown>) {
  if (
    !(BUILT_IN_PROVIDERS as readonly string[]).includes(id) && checkProviderId(id).kind !== "compat"
  ) {
    throw new ConfigError(
      key,
      `unknown provider "${id}"; expected one of ${
        BUILT_IN_PROVIDERS.join(", ")
      } or openai-compat:<name> (lower-case letters, digits, - and _)`,
    );
  }
  if (typeof table !== "object" || table === null || Array.isArray(table)) {
    throw new ConfigError(key, "expected a table");
  }
  for (const [k, v] of Object.entries(table)) {
    if (!(k in PROVIDER_KEYS)) throw new ConfigError(`${key}.${k}`, "unknown key");
    if (!id.startsWith("openai-compat:") && k !== "base_url") {
      throw new ConfigError(`${key}.${k}`, "only base_url can be set for a built-in provider");
    }
    flat.set(`${key}.${k}`, v);
  }
}

function envName(key: string): string {
  return key.toUpperCase().replaceAll(".", "_");
}

function providersFrom(flat: Map<string, unknown>, env: Record<string, string | undefined>) {
  const providers: Record<string, ProviderSettings> = {};
  for (const id of BUILT_IN_PROVIDERS) {
    const key = `router.providers.${id}.base_url`;
    const value = env[envName(key)] ?? flat.get(key);
    if (value !== undefined) {
      providers[id] = { base_url: coerce(key, "url", value, false) as string };
    }
  }
  for (const [key, value] of flat) {
    const match = /^router\.providers\.(openai-compat:[^.]+)\.(\w+)$/.exec(key);
    if (!match) continue;
    const [, id, field] = match;
    const settings = providers[id] ??= {};
    if (field === "models") {
      const read = readModelDeclarations(value, key);
      if ("problem" in read) throw new ConfigError(read.key, read.problem);
      settings.models = value as ModelDeclaration[];
    } else {
      (settings as Record<string, unknown>)[field] = coerce(
        key,
        PROVIDER_KEYS[field] as Kind,
        value,
        false,
      );
    }
  }
  for (const [id, settings] of Object.entries(providers)) {
    if (id.startsWith("openai-compat:") && settings.base_url === undefined) {
      throw new ConfigError(
        `router.providers."${id}".base_url`,
        "required for a compatible-API instance",
      );
    }
  }
  return providers;
}

export async function loadConfig(
  args: readonly string[],
  env: Record<string, string | undefined>,
): Promise<Config> {
  const doc = await readConfigFile(args, env);
  const flat = flattenFile(doc);
  const get = (key: string, fallback: unknown, aliases: string[] = []): unknown => {
    const fromEnv = [envName(key), ...aliases].map((name) => env[name]).find((v) =>
      v !== undefined && v !== ""
    );
    if (fromEnv !== undefined) return coerce(key, SCALAR_KEYS[key], fromEnv, true);
    if (flat.has(key)) return coerce(key, SCALAR_KEYS[key], flat.get(key), false);
    return fallback;
  };
  const config: Config = {
    host: get("router.host", "127.0.0.1") as string,
    port: get("router.port", 7331, ["PORT"]) as number,
    databaseUrl: get("router.database.url", undefined, ["DATABASE_URL"]) as string | undefined,
    databaseMaxConnections: get(
      "router.database.max_connections",
      DEFAULT_DATABASE_CONNECTIONS,
    ) as number,
    databaseStatementTimeoutMs: get(
      "router.database.statement_timeout_ms",
      DEFAULT_STATEMENT_TIMEOUT_MS,
    ) as number,
    storagePath: get("router.storage.path", "./data") as string,
    storageFsync: get("router.storage.fsync", DEFAULT_STORAGE_FSYNC) as boolean,
    auth: {
      tokenTtlSeconds: get("router.auth.token_ttl_seconds", 86400) as number,
      bootstrapEnabled: get("router.auth.bootstrap_enabled", true) as boolean,
      ...operatorToken(get("router.auth.operator_token", undefined) as string | undefined),
    },
    limits: {
      maxRequestBodyBytes: get("router.limits.max_request_body_bytes", 10 * 1024 * 1024) as number,
      providerTimeoutMs: get("router.limits.provider_timeout_ms", 180000) as number,
      shutdownGraceMs: get("router.limits.shutdown_grace_ms", 10000) as number,
      rate: {
        enabled: get("router.limits.rate.enabled", true) as boolean,
        anonymousPerMinute: get("router.limits.rate.anonymous_per_minute", 60) as number,
        anonymousBurst: get("router.limits.rate.anonymous_burst", 20) as number,
        userPerMinute: get("router.limits.rate.user_per_minute", 6000) as number,
        userBurst: get("router.limits.rate.user_burst", 1000) as number,
        trustForwardedFor: get("router.limits.rate.trust_forwarded_for", false) as boolean,
      },
    },
    http: { corsOrigins: get("router.http.cors_origins", []) as string[] },
    providers: providersFrom(flat, env),
    telemetry: telemetryFrom(get),
  };
  const listen = config.telemetry.metricsListen;
  if (listen !== undefined && listen.port !== 0 && listen.port === config.port) {
    throw new ConfigError(
      "router.telemetry.metrics_listen",
      `must not use the API's port ${config.port}: the metrics listener is a second address`,
    );
  }
  return config;
}

function operatorToken(token: string | undefined): { operatorToken?: string } {
  return token === undefined ? {} : { operatorToken: token };
}

function telemetryFrom(
  get: (key: string, fallback: unknown, aliases?: string[]) => unknown,
): TelemetrySettings {
  const token = get("router.telemetry.metrics_token", undefined) as string | undefined;
  const listen = get("router.telemetry.metrics_listen", undefined) as
    | TelemetrySettings["metricsListen"]
    | undefined;
  const endpoint = get("router.telemetry.otlp_endpoint", undefined, [
    "OTEL_EXPORTER_OTLP_ENDPOINT",
  ]) as string | undefined;
  return {
    metricsEnabled: get("router.telemetry.metrics_enabled", true) as boolean,
    ...(token === undefined ? {} : { metricsToken: token }),
    ...(listen === undefined ? {} : { metricsListen: listen }),
    ...(endpoint === undefined ? {} : { otlpEndpoint: endpoint }),
    serviceName: get("router.telemetry.service_name", "switchyard", [
      "OTEL_SERVICE_NAME",
    ]) as string,
  };
}

/** `--config <path>` / `--config=<path>`, then `ROUTER_CONFIG`, then `./switchyard.toml` if present. */
async function readConfigFile(
  args: readonly string[],
  env: Record<string, string | undefined>,
): Promise<Record<string, unknown>> {
  const flag = args.findIndex((a) => a === "--config" || a.startsWith("--config="));
  let path: string | undefined;
  if (flag >= 0) {
    path = args[flag].includes("=") ? args[flag].slice("--config=".length) : args[flag + 1];
    if (!path) throw new ConfigError("--config", "expected a file path");
  } else if (env.ROUTER_CONFIG) {
    path = env.ROUTER_CONFIG;
  }
  const explicit = path !== undefined;
  path ??= "./switchyard.toml";
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    if (!explicit) return {};
    throw new ConfigError(flag >= 0 ? "--config" : "ROUTER_CONFIG", `cannot read file "${path}"`);
  }
  try {
    return parseToml(text) as Record<string, unknown>;
  } catch (e) {
    const line = (e as Error).message.split("\n")[0];
    throw new ConfigError(path, `not valid TOML: ${line}`);
  }
}
