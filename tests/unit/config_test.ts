import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ConfigError, loadConfig } from "../../src/config.ts";

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "switchyard-config-"));
});
after(() => rm(dir, { recursive: true, force: true }));

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

async function configError(args: string[], env: Record<string, string>): Promise<string> {
  try {
    await loadConfig(args, env);
  } catch (e) {
    assert.ok(e instanceof ConfigError, String(e));
    assert.equal(e.message.includes("\n"), false, "one line");
    return e.message;
  }
  assert.fail("expected a configuration error");
}

describe("configuration", () => {
  test("defaults match the contract", async () => {
    const c = await loadConfig([], {});
    assert.deepEqual(c, {
      host: "127.0.0.1",
      port: 7331,
      databaseUrl: undefined,
      databaseMaxConnections: 4,
      databaseStatementTimeoutMs: 10000,
      storagePath: "./data",
      storageFsync: true,
      auth: { tokenTtlSeconds: 86400, bootstrapEnabled: true },
      limits: {
        maxRequestBodyBytes: 10485760,
        providerTimeoutMs: 180000,
        rate: {
          enabled: true,
          anonymousPerMinute: 60,
          anonymousBurst: 20,
          userPerMinute: 6000,
          userBurst: 1000,
          trustForwardedFor: false,
        },
        shutdownGraceMs: 10000,
      },
      http: { corsOrigins: [] },
      providers: {},
      telemetry: { metricsEnabled: true, serviceName: "switchyard" },
    });
  });

  test("telemetry keys come from the file, the standard OTEL variables and ROUTER_TELEMETRY_*", async () => {
    const path = await file(
      "telemetry.toml",
      `[router.telemetry]
metrics_enabled = false
metrics_token = "0123456789abcdef-metrics"
metrics_listen = "[::1]:9464"
otlp_endpoint = "http://collector:4318"
service_name = "gateway"
`,
    );
    assert.deepEqual((await loadConfig(["--config", path], {})).telemetry, {
      metricsEnabled: false,
      metricsToken: "0123456789abcdef-metrics",
      metricsListen: { host: "::1", port: 9464 },
      otlpEndpoint: "http://collector:4318",
      serviceName: "gateway",
    });
    const standard = await loadConfig(["--config", path], {
      OTEL_EXPORTER_OTLP_ENDPOINT: "https://otel.example:4318/",
      OTEL_SERVICE_NAME: "edge",
      ROUTER_TELEMETRY_METRICS_LISTEN: "0.0.0.0:9100",
    });
    assert.equal(standard.telemetry.otlpEndpoint, "https://otel.example:4318/");
    assert.equal(standard.telemetry.serviceName, "edge");
    assert.deepEqual(standard.telemetry.metricsListen, { host: "0.0.0.0", port: 9100 });
    const ours = await loadConfig([], {
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318",
      ROUTER_TELEMETRY_OTLP_ENDPOINT: "http://b:4318",
    });
    assert.equal(ours.telemetry.otlpEndpoint, "http://b:4318");
  });

  test("a bad telemetry value names its key and never quotes the metrics token", async () => {
    const cases: [Record<string, string>, string][] = [
      [{ ROUTER_TELEMETRY_METRICS_ENABLED: "yes" }, "router.telemetry.metrics_enabled"],
      [{ ROUTER_TELEMETRY_METRICS_LISTEN: "9464" }, "router.telemetry.metrics_listen"],
      [{ ROUTER_TELEMETRY_METRICS_LISTEN: "h:99999" }, "router.telemetry.metrics_listen"],
      [{ ROUTER_TELEMETRY_METRICS_LISTEN: "127.0.0.1:7331" }, "router.telemetry.metrics_listen"],
      [{ OTEL_EXPORTER_OTLP_ENDPOINT: "grpc://c:4317" }, "router.telemetry.otlp_endpoint"],
    ];
    for (const [env, key] of cases) {
      const message = await configError([], env);
      assert.ok(message.startsWith(`invalid configuration: ${key}: `), message);
    }
    const short = await configError([], { ROUTER_TELEMETRY_METRICS_TOKEN: "short-secret" });
    assert.equal(
      short,
      "invalid configuration: router.telemetry.metrics_token: expected a string of at least 16 characters",
    );
  });

  test("reads every key from the file named by --config", async () => {
    const path = await file(
      "full.toml",
      `[router]
host = "0.0.0.0"
port = 8080
[router.database]
url = "postgres://u@db:5432/app"
max_connections = 12
statement_timeout_ms = 2500
[router.storage]
path = "/var/lib/switchyard"
[router.auth]
token_ttl_seconds = 60
bootstrap_enabled = false
[router.limits]
max_request_body_bytes = 2048
provider_timeout_ms = 5000
shutdown_grace_ms = 2500
[router.limits.rate]
enabled = false
anonymous_per_minute = 5
anonymous_burst = 2
user_per_minute = 600
user_burst = 50
trust_forwarded_for = true
[router.providers.openai]
base_url = "http://127.0.0.1:9999/v1"
[router.providers."openai-compat:lmstudio"]
base_url = "http://127.0.0.1:1234/v1"
local = true
display_name = "LM Studio"
models = ["qwen3-8b"]
`,
    );
    for (const args of [["--config", path], [`--config=${path}`]]) {
      const c = await loadConfig(args, {});
      assert.equal(c.host, "0.0.0.0");
      assert.equal(c.port, 8080);
      assert.equal(c.databaseUrl, "postgres://u@db:5432/app");
      assert.equal(c.databaseMaxConnections, 12);
      assert.equal(c.databaseStatementTimeoutMs, 2500);
      assert.equal(c.storagePath, "/var/lib/switchyard");
      assert.deepEqual(c.auth, { tokenTtlSeconds: 60, bootstrapEnabled: false });
      assert.deepEqual(c.limits, {
        maxRequestBodyBytes: 2048,
        providerTimeoutMs: 5000,
        rate: {
          enabled: false,
          anonymousPerMinute: 5,
          anonymousBurst: 2,
          userPerMinute: 600,
          userBurst: 50,
          trustForwardedFor: true,
        },
        shutdownGraceMs: 2500,
      });
      assert.deepEqual(c.providers, {
        openai: { base_url: "http://127.0.0.1:9999/v1" },
        "openai-compat:lmstudio": {
          base_url: "http://127.0.0.1:1234/v1",
          local: true,
          display_name: "LM Studio",
          models: ["qwen3-8b"],
        },
      });
    }
  });

  test("ROUTER_CONFIG names the file when --config is absent", async () => {
    const path = await file("env.toml", "[router]\nport = 9000\n");
    assert.equal((await loadConfig([], { ROUTER_CONFIG: path })).port, 9000);
  });

  test("variables win over the file, ROUTER_* over PORT and DATABASE_URL", async () => {
    const path = await file(
      "over.toml",
      "[router]\nport = 9000\n[router.auth]\ntoken_ttl_seconds = 5\n",
    );
    const c = await loadConfig(["--config", path], {
      ROUTER_AUTH_TOKEN_TTL_SECONDS: "120",
      ROUTER_AUTH_BOOTSTRAP_ENABLED: "false",
      PORT: "9100",
      DATABASE_URL: "postgres://a@h/d",
      ROUTER_LIMITS_MAX_REQUEST_BODY_BYTES: "10",
      ROUTER_PROVIDERS_OLLAMA_BASE_URL: "http://127.0.0.1:1/",
      ROUTER_LIMITS_RATE_ENABLED: "0",
      ROUTER_LIMITS_RATE_USER_BURST: "7",
      ROUTER_DATABASE_STATEMENT_TIMEOUT_MS: "750",
      ROUTER_STORAGE_FSYNC: "false",
    });
    assert.equal(c.databaseStatementTimeoutMs, 750);
    assert.equal(c.storageFsync, false);
    assert.equal(c.limits.rate.enabled, false);
    assert.equal(c.limits.rate.userBurst, 7);
    assert.equal(c.port, 9100);
    assert.equal(c.auth.tokenTtlSeconds, 120);
    assert.equal(c.auth.bootstrapEnabled, false);
    assert.equal(c.databaseUrl, "postgres://a@h/d");
    assert.equal(c.limits.maxRequestBodyBytes, 10);
    assert.deepEqual(c.providers.ollama, { base_url: "http://127.0.0.1:1/" });
    const both = await loadConfig([], {
      PORT: "1",
      ROUTER_PORT: "2",
      DATABASE_URL: "postgres://x/y",
      ROUTER_DATABASE_URL: "postgres://z/w",
    });
    assert.equal(both.port, 2);
    assert.equal(both.databaseUrl, "postgres://z/w");
  });

  test("cors_origins is a list of exact origins, from the file or comma-separated from a variable", async () => {
    const path = await file(
      "cors.toml",
      '[router.http]\ncors_origins = ["https://app.example.com", "http://localhost:5173"]\n',
    );
    const fromFile = await loadConfig(["--config", path], {});
    assert.deepEqual(fromFile.http.corsOrigins, [
      "https://app.example.com",
      "http://localhost:5173",
    ]);
    const fromEnv = await loadConfig(["--config", path], {
      ROUTER_HTTP_CORS_ORIGINS: "https://one.example, https://two.example:8443",
    });
    assert.deepEqual(fromEnv.http.corsOrigins, ["https://one.example", "https://two.example:8443"]);
  });

  test("a bad value stops start-up with one line naming the key", async () => {
    const cases: [Record<string, string>, string][] = [
      [{ ROUTER_PORT: "abc" }, "router.port"],
      [{ PORT: "70000" }, "router.port"],
      [{ ROUTER_AUTH_TOKEN_TTL_SECONDS: "0" }, "router.auth.token_ttl_seconds"],
      [{ ROUTER_AUTH_TOKEN_TTL_SECONDS: "1.5" }, "router.auth.token_ttl_seconds"],
      [{ ROUTER_AUTH_BOOTSTRAP_ENABLED: "maybe" }, "router.auth.bootstrap_enabled"],
      [{ ROUTER_STORAGE_FSYNC: "sometimes" }, "router.storage.fsync"],
      [{ ROUTER_LIMITS_PROVIDER_TIMEOUT_MS: "-1" }, "router.limits.provider_timeout_ms"],
      [{ DATABASE_URL: "mysql://x/y" }, "router.database.url"],
      [{ ROUTER_DATABASE_MAX_CONNECTIONS: "0" }, "router.database.max_connections"],
      [{ ROUTER_DATABASE_STATEMENT_TIMEOUT_MS: "0" }, "router.database.statement_timeout_ms"],
      [{ ROUTER_LIMITS_RATE_USER_BURST: "0" }, "router.limits.rate.user_burst"],
      [
        { ROUTER_LIMITS_RATE_ANONYMOUS_PER_MINUTE: "many" },
        "router.limits.rate.anonymous_per_minute",
      ],
      [{ ROUTER_LIMITS_RATE_TRUST_FORWARDED_FOR: "yes" }, "router.limits.rate.trust_forwarded_for"],
      [{ ROUTER_PROVIDERS_OPENAI_BASE_URL: "not a url" }, "router.providers.openai.base_url"],
      [{ ROUTER_HTTP_CORS_ORIGINS: "*" }, "router.http.cors_origins"],
      [{ ROUTER_HTTP_CORS_ORIGINS: "https://a.example/app" }, "router.http.cors_origins"],
    ];
    for (const [env, key] of cases) {
      const message = await configError([], env);
      assert.match(
        message,
        new RegExp(`^invalid configuration: ${key.replaceAll(".", "\\.")}: `),
        message,
      );
    }
  });

  test("file mistakes name the key too", async () => {
    const cases: [string, string][] = [
      ['[router]\nport = "80"\n', "router.port"],
      ["[router]\nprot = 80\n", "router.prot"],
      ["[router.limits.rate]\nper_minute = 80\n", "router.limits.rate.per_minute"],
      ['[router.http]\ncors_origins = "https://a.example"\n', "router.http.cors_origins"],
      ['[router.http]\ncors_origins = ["ftp://a.example"]\n', "router.http.cors_origins"],
      ['[router.http]\ncors_origins = ["https://a.example/"]\n', "router.http.cors_origins"],
      ["[server]\nport = 80\n", "server"],
      ['[router.auth]\nbootstrap_enabled = "yes"\n', "router.auth.bootstrap_enabled"],
      ['[router.providers.openia]\nbase_url = "http://x"\n', "router.providers.openia"],
      ["[router.providers.openai]\nlocal = true\n", "router.providers.openai.local"],
      [
        '[router.providers."openai-compat:Bad Name"]\nbase_url = "http://x"\n',
        "router.providers.openai-compat:Bad Name",
      ],
      [
        '[router.providers."openai-compat:lm"]\nlocal = true\n',
        'router.providers."openai-compat:lm".base_url',
      ],
      [
        '[router.providers."openai-compat:lm"]\nbase_url = "http://x"\nmodels = [1]\n',
        "router.providers.openai-compat:lm.models[0]",
      ],
    ];
    for (const [i, [text, key]] of cases.entries()) {
      const path = await file(`bad${i}.toml`, text);
      const message = await configError(["--config", path], {});
      assert.ok(message.startsWith(`invalid configuration: ${key}: `), message);
    }
  });

  test("models of a compatible instance may declare their limits, prices and capabilities", async () => {
    const path = await file(
      "declared.toml",
      `[router.providers."openai-compat:lab"]
base_url = "http://127.0.0.1:8000/v1"
local = true
models = [
  "tiny-model",
  { name = "qwen3-8b", max_context_tokens = 8192, max_output_tokens = 2048, display_name = "Qwen3 8B",
    capabilities = { tools = true, streaming = true }, input_cost_per_million_tokens = "0.10", output_cost_per_million_tokens = "0.40" },
]
`,
    );
    const c = await loadConfig(["--config", path], {});
    // TOML tables arrive with a null prototype; compare their JSON.
    assert.deepEqual(JSON.parse(JSON.stringify(c.providers["openai-compat:lab"].models)), [
      "tiny-model",
      {
        name: "qwen3-8b",
        max_context_tokens: 8192,
        max_output_tokens: 2048,
        display_name: "Qwen3 8B",
        capabilities: { tools: true, streaming: true },
        input_cost_per_million_tokens: "0.10",
        output_cost_per_million_tokens: "0.40",
      },
    ]);
  });

  test("every key of a model declaration is checked, naming it", async () => {
    const at = "router.providers.openai-compat:lm.models[1]";
    const cases: [string, string][] = [
      ['{ name = "m", max_context_tokens = 0 }', `${at}.max_context_tokens`],
      ['{ name = "m", max_output_tokens = 1.5 }', `${at}.max_output_tokens`],
      [
        '{ name = "m", input_cost_per_million_tokens = 0.1 }',
        `${at}.input_cost_per_million_tokens`,
      ],
      [
        '{ name = "m", output_cost_per_million_tokens = "-1" }',
        `${at}.output_cost_per_million_tokens`,
      ],
      ['{ name = "m", capabilities = { telepathy = true } }', `${at}.capabilities.telepathy`],
      ['{ name = "m", capabilities = { tools = "yes" } }', `${at}.capabilities.tools`],
      ['{ name = "m", capabilities = { memory = true } }', `${at}.capabilities.memory`],
      ['{ name = "m", capabilities = true }', `${at}.capabilities`],
      ['{ name = "m", display_name = "" }', `${at}.display_name`],
      ['{ name = "m", window = 8192 }', `${at}.window`],
      ["{ max_context_tokens = 8192 }", `${at}.name`],
      ['{ name = "a", max_context_tokens = 9 }', at],
      ["[]", at],
    ];
    for (const [i, [entry, key]] of cases.entries()) {
      const path = await file(
        `declared${i}.toml`,
        `[router.providers."openai-compat:lm"]\nbase_url = "http://x"\nmodels = ["a", ${entry}]\n`,
      );
      const message = await configError(["--config", path], {});
      assert.ok(message.startsWith(`invalid configuration: ${key}: `), `${entry}: ${message}`);
    }
  });

  test("an unreadable or unparseable explicit file is an error; a missing default file is not", async () => {
    assert.match(
      await configError(["--config", join(dir, "absent.toml")], {}),
      /^invalid configuration: --config: cannot read file/,
    );
    assert.match(
      await configError([], { ROUTER_CONFIG: join(dir, "absent.toml") }),
      /ROUTER_CONFIG/,
    );
    const broken = await file("broken.toml", "[router\nport=");
    assert.match(await configError(["--config", broken], {}), /not valid TOML/);
  });
});
