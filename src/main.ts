import process from "node:process";
import { parseCommandLine, USAGE } from "./command_line.ts";
import { type Config, ConfigError, loadConfig } from "./config.ts";
import { engineDeps } from "./engine/engine_deps.ts";
import type { Deps } from "./http/context.ts";
import { createHandler, type Handler } from "./http/handler.ts";
import { startInstance, uncaughtHandler } from "./instance_life.ts";
import { readWebAssets, type WebAssets } from "./http/web_assets.ts";
import { getMetricsOnListener } from "./http/routes/metrics.ts";
import { batchedLines, createLogger, type Logger } from "./log.ts";
import { createModelCache } from "./providers/model_cache.ts";
import { buildRegistry, type Registry } from "./providers/registry.ts";
import { collectAllGarbage } from "./platform/collect_garbage.ts";
import { uuidv7 } from "./platform/ids.ts";
import type { Db } from "./store/db.ts";
import { migrate } from "./store/migrate.ts";
import { MIGRATIONS } from "./store/migrations.ts";
import { backupStore, restoreStore } from "./store/pglite_backup.ts";
import { HistoryCache } from "./store/history_cache.ts";
import { DataDirError } from "./store/data_dir.ts";
import { openStore } from "./store/open.ts";
import { holdLivenessLock } from "./store/liveness_lock.ts";
import { openSupersedeSignals } from "./store/supersede_signal.ts";
import type { PgliteAssets } from "./store/pglite_driver.ts";
import { createTelemetry, type Telemetry } from "./telemetry/telemetry.ts";
import { VERSION } from "./version.ts";

/** What a runtime entry provides: a way to serve a handler. Nothing else knows the runtime. */
export type Serve = (options: {
  hostname: string;
  port: number;
  handler: Handler;
}) => Promise<{ url: string; close(): Promise<void> }>;

export interface Runtime {
  serve: Serve;
  /** Embedded PGlite assets, for a single-file build that cannot read them from node_modules. */
  pgliteAssets?: () => Promise<PgliteAssets>;
  /** The embedded store's worker module, for a single-file build that bundles it elsewhere. */
  pgliteWorker?: string;
  /** The console and API reference embedded in a single-file build; else read from web/. */
  webAssets?: () => Promise<WebAssets>;
}

export interface Service {
  url: string;
  /** The metrics-only listener's base URL, when `router.telemetry.metrics_listen` is set. */
  metricsUrl?: string;
  config: Config;
  db: Db;
  /**
   * Drains (new turns get 503 `shutting_down`, running ones get
   * `router.limits.shutdown_grace_ms`, what is left is cut like a `break`),
   * then closes the server and the store.
   */
  close(): Promise<void>;
}

/** Where `console/build.ts` writes the console and the API reference. */
const BUILT_WEB_ASSETS = new URL("../web/", import.meta.url);

/** Opens the store and applies pending migrations. */
async function openMigratedStore(config: Config, runtime: Runtime, logger: Logger): Promise<Db> {
  const db = await openStore(config, {
    assets: runtime.pgliteAssets,
    workerModule: runtime.pgliteWorker,
    onMaintenance: ({ table, kind, ms }) =>
      logger.info("store maintained", { table, kind, ms: Math.round(ms * 10) / 10 }),
    onEvent: (event) => {
      if (event.kind === "disk_full") {
        logger.error("store out of disk space: free space on the file system of its directory", {
          directory: event.path,
        });
      } else if (event.kind === "restarting") {
        logger.warn("store stopped, starting it again on its directory", {
          directory: event.path,
          reason: event.why,
        });
      } else logger.info("store started again", { directory: event.path, ms: event.ms });
    },
  });
  const applied = await migrate(db);
  if (applied.length > 0) logger.info("migrations applied", { migrations: applied });
  return db;
}

/** The provider registry of `config`; a bad provider setting stops start-up naming its key. */
export function registryFromConfig(config: Config): Registry {
  const built = buildRegistry({ providers: config.providers });
  if (built.ok) return built.value;
  const key = String(built.failure.details?.key ?? "router.providers");
  const prefix = `invalid configuration ${key}: `;
  const message = built.failure.message;
  const problem = message.startsWith(prefix) ? message.slice(prefix.length) : message;
  throw new ConfigError(key, problem);
}

/** Metrics unless turned off; traces only with an OTLP endpoint. */
export function telemetryFromConfig(config: Config): Promise<Telemetry> {
  const { metricsEnabled, otlpEndpoint, serviceName } = config.telemetry;
  return createTelemetry({
    metrics: metricsEnabled,
    ...(otlpEndpoint === undefined ? {} : { tracing: { endpoint: otlpEndpoint, serviceName } }),
  });
}

/** The metrics-only listener of `router.telemetry.metrics_listen`, when set. */
async function serveMetrics(runtime: Runtime, deps: Deps) {
  const listen = deps.config.telemetry.metricsListen;
  if (listen === undefined || !deps.config.telemetry.metricsEnabled) return null;
  const handler = createHandler(deps, [
    { method: "GET", path: "/metrics", handler: getMetricsOnListener },
  ]);
  return await runtime.serve({ hostname: listen.host, port: listen.port, handler });
}

/** Configuration → store → handler → serve. */
export async function startService(
  args: readonly string[],
  env: Record<string, string | undefined>,
  runtime: Runtime,
  logger: Logger = createLogger((line) => console.error(line)),
): Promise<Service> {
  const config = await loadConfig(args, env);
  const registry = registryFromConfig(config);
  const telemetry = await telemetryFromConfig(config);
  // PGlite has one connection.
  const db = telemetry.instrumentDb(
    await openMigratedStore(config, runtime, logger),
    config.databaseUrl ? config.databaseMaxConnections : 1,
  );
  // One LISTEN connection per instance; on the embedded store it never signals.
  const signals = await openSupersedeSignals(config.databaseUrl, {
    statementTimeoutMs: config.databaseStatementTimeoutMs,
  });
  const webAssets = await (runtime.webAssets?.() ?? readWebAssets(BUILT_WEB_ASSETS));
  if (!webAssets) logger.warn("web console not built: run `deno task console:build`", {});
  let draining = () => false;
  const deps: Deps = {
    db,
    config,
    logger,
    now: () => new Date(),
    newId: () => uuidv7(),
    registry,
    listingCache: createModelCache(),
    historyCache: new HistoryCache(),
    signals,
    instanceId: uuidv7(),
    ...(webAssets ? { webAssets } : {}),
    telemetry,
    draining: () => draining(),
  };
  const engine = engineDeps(deps);
  // Taken before the instance joins: its row names it (store/liveness_lock.ts).
  const livenessLock = config.databaseUrl === undefined ? undefined : await holdLivenessLock(
    config.databaseUrl,
    { statementTimeoutMs: config.databaseStatementTimeoutMs, logger },
  );
  const life = await startInstance({
    db,
    instance: engine.instance,
    sole: config.databaseUrl === undefined,
    livenessLock,
    watcher: engine.watcher,
    now: deps.now,
    logger,
  });
  draining = () => life.draining;
  // Start-up leaves garbage that would otherwise stay resident until memory pressure: the
  // migrations' and the web assets' hashing. Collect it once, before serving. (The embedded
  // store's thread collects its own, pglite_worker.ts.)
  collectAllGarbage();
  const server = await runtime.serve({
    hostname: config.host,
    port: config.port,
    handler: createHandler(deps),
  });
  const metricsServer = await serveMetrics(runtime, deps);
  logger.info("listening", {
    url: server.url,
    version: VERSION,
    store: config.databaseUrl ? "postgres" : config.storagePath,
    ...(metricsServer === null ? {} : { metrics_url: `${metricsServer.url}/metrics` }),
  });
  return {
    url: server.url,
    ...(metricsServer === null ? {} : { metricsUrl: metricsServer.url }),
    config,
    db,
    async close() {
      await life.drain(config.limits.shutdownGraceMs).catch((error) =>
        logger.error("drain failed", { error: (error as Error)?.name })
      );
      // The streams of cut turns end with their `turn_end` a moment after their turns.
      await new Promise((resolve) => setTimeout(resolve, 50));
      await server.close();
      await metricsServer?.close();
      await signals.close();
      await db.close();
      await telemetry.close();
    },
  };
}

/**
 * `backup <file>` and `restore <file> [--force]`: the embedded store to a
 * file and back (store/pglite_backup.ts), with the service stopped. The rest
 * of `args` is the configuration's (`--config`). Returns the line to print.
 */
async function backupCommand(
  args: readonly string[],
  env: Record<string, string | undefined>,
  runtime: Runtime,
): Promise<string> {
  const [command, file, ...rest] = args;
  const force = rest.includes("--force");
  if (file === undefined || file.startsWith("--") || (force && command === "backup")) {
    throw new CommandError(`usage: ${command} <file>${command === "restore" ? " [--force]" : ""}`);
  }
  const config = await loadConfig(rest.filter((a) => a !== "--force"), env);
  if (config.databaseUrl !== undefined) {
    throw new CommandError(
      `${command} is for the embedded store, and router.database.url is set: ` +
        "back PostgreSQL up with pg_dump, and restore with psql or pg_restore",
    );
  }
  if (config.storagePath === "memory://") {
    throw new CommandError(`${command}: router.storage.path is memory://, which keeps nothing`);
  }
  const assets = await runtime.pgliteAssets?.();
  const dir = config.storagePath;
  if (command === "backup") {
    const { bytes } = await backupStore(dir, file, {
      migrations: MIGRATIONS,
      assets,
      version: VERSION,
      now: new Date(),
    });
    return `backed up "${dir}" to "${file}" (${(bytes / 1024 / 1024).toFixed(1)} MB)`;
  }
  const { tables } = await restoreStore(file, dir, { migrations: MIGRATIONS, assets, force });
  return `restored "${file}" into "${dir}" (${tables} tables)`;
}

/** A command line that cannot be carried out, said in one line. */
class CommandError extends Error {
  override readonly name = "CommandError";
}

/**
 * The command line, shared by every runtime entry (command_line.ts): `--help`
 * and `--version` print and exit 0; `migrate` applies the migrations and exits;
 * `backup` and `restore` copy the embedded store to a file and back; `serve`
 * (or no command) serves until SIGINT or SIGTERM; anything else prints the
 * usage and exits 2.
 */
export async function runCli(
  args: readonly string[],
  env: Record<string, string | undefined>,
  runtime: Runtime,
): Promise<void> {
  const lines = batchedLines((text) => console.error(text));
  const logger = createLogger(lines.write);
  const exit = (code: number) => {
    lines.flush();
    process.exit(code);
  };
  const command = parseCommandLine(args);
  if (command.kind === "help") return console.log(USAGE);
  if (command.kind === "version") return console.log(`switchyard ${VERSION}`);
  if (command.kind === "usage_error") {
    console.error(`switchyard: ${command.message}\n\n${USAGE}`);
    process.exit(2);
  }
  try {
    if (command.kind === "backup" || command.kind === "restore") {
      const line = await backupCommand(command.args, env, runtime).catch((error) => {
        if (
          error instanceof ConfigError || error instanceof DataDirError ||
          error instanceof CommandError
        ) throw error;
        throw new CommandError(
          `${command.kind} failed: ${
            (error instanceof Error ? error.message : String(error)).split("\n")[0]
          }`,
        );
      });
      lines.flush();
      console.log(line);
      return;
    }
    if (command.kind === "migrate") {
      const db = await openMigratedStore(await loadConfig(command.args, env), runtime, logger);
      await db.close();
      lines.flush();
      return;
    }
    const service = await startService(command.args, env, runtime, logger);
    let stopping = false;
    const stop = async () => {
      if (stopping) return;
      stopping = true;
      logger.info("shutting down");
      await service.close();
      logger.info("stopped");
      exit(0);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
    process.on("uncaughtException", uncaughtHandler(logger, exit));
  } catch (error) {
    if (
      error instanceof ConfigError || error instanceof DataDirError ||
      error instanceof CommandError
    ) {
      lines.flush();
      console.error(error.message);
      process.exit(1);
    }
    logger.error("start-up failed", {
      error: error instanceof Error ? error.message : String(error),
    });
    exit(1);
  }
}
