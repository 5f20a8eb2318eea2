/**
 * `deno task demo`: Switchyard with nothing to configure and no provider key.
 * Starts the demo provider (an OpenAI-compatible server of its own, demo/provider/)
 * and the service with demo/switchyard.toml, an ordinary configuration that
 * declares that provider; gets a ready API key through the public API and
 * stores the demo policy as the user's named policies `default` and `demo`;
 * writes a Codex configuration pointing at the service (<dir>/codex); prints
 * what to try; stops both on Ctrl-C or SIGTERM.
 *
 * Options (for running beside another instance, and for tests):
 *   --dir DIR            the demo's directory: store, key, logs, Codex home (default .demo)
 *   --port N             the service's port (default: the file's, 7331; 0 for any)
 *   --provider-port N    the demo provider's port (default: the file's, 7332; 0 for any)
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { parse as parseToml } from "smol-toml";
import { banner, PREVIEW_PROMPT } from "./banner.ts";
import { type Child, startChild } from "./child_process.ts";
import { codexConfig } from "./codex_config.ts";
import { DEMO_CONFIG, DEMO_POLICY, readDemoConfig, withProviderUrl } from "./demo_config.ts";
import { storeDemoPolicies } from "./demo_policies.ts";
import { demoUser } from "./demo_user.ts";
import { childEnv, cliCommand, PROVIDER_ARGS, SERVICE_ARGS, SERVICE_ENV } from "./launch_args.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** A path as typed from where the user ran the task (`deno task` runs in the repository root). */
const shown = (path: string) => {
  const rel = relative(process.env.INIT_CWD ?? process.cwd(), path);
  return rel === "" || rel.startsWith("..") || isAbsolute(rel) ? path : rel;
};

interface Options {
  dir?: string;
  port?: string;
  providerPort?: string;
}

/** Starts both children (each pushed to `children` as soon as it runs) and prints the banner. */
async function startUp(options: Options, children: Child[], stopping: () => boolean) {
  const config = await readDemoConfig();
  // The key and the logs sit beside the store the configuration names (.demo/data).
  const dir = resolve(options.dir ?? dirname(resolve(ROOT, config.storagePath)));
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const env = childEnv(process.env);

  const provider = startChild({
    name: "the demo provider",
    args: [...PROVIDER_ARGS, "--port", options.providerPort ?? config.providerUrl.port],
    env,
    cwd: ROOT,
    logFile: join(dir, "provider.log"),
    ready: (out) => /demo provider listening on (\S+)/.exec(out)?.[1],
  });
  children.push(provider.child);
  const providerUrl = await provider.ready;

  // The shipped file as it is, unless the provider listens elsewhere: then a copy that says so.
  let configFile = DEMO_CONFIG;
  if (providerUrl !== config.providerUrl.href.replace(/\/$/, "")) {
    configFile = join(dir, "switchyard.toml");
    await writeFile(configFile, withProviderUrl(config, providerUrl));
  }
  const serviceEnv = { ...env, ...SERVICE_ENV };
  if (options.dir !== undefined) serviceEnv.ROUTER_STORAGE_PATH = join(dir, "data");
  if (options.port !== undefined) serviceEnv.ROUTER_PORT = options.port;
  if (stopping()) return;
  const service = startChild({
    name: "the service",
    args: [...SERVICE_ARGS, "--config", configFile],
    env: serviceEnv,
    cwd: ROOT,
    logFile: join(dir, "service.log"),
    ready: (out) => {
      const line = out.split("\n").find((l) => l.includes('"msg":"listening"'));
      return line === undefined ? undefined : JSON.parse(line).url;
    },
  });
  children.push(service.child);
  const url = await service.ready;
  const status = await fetch(`${url}/status`);
  if (!status.ok) throw new Error(`GET /status answered ${status.status}`);
  await status.body?.cancel();

  const user = await demoUser(url, join(dir, "api_key"));
  const previewFile = join(dir, "preview.json");
  const policy = parseToml(await readFile(DEMO_POLICY, "utf8"));
  const policies = await storeDemoPolicies(url, user.token, policy);
  await writeFile(
    previewFile,
    `${JSON.stringify({ input: { text: PREVIEW_PROMPT }, policy }, null, 2)}\n`,
  );
  // Codex's own home for the demo, so the user's ~/.codex stays as it is.
  const codexHome = join(dir, "codex");
  await mkdir(codexHome, { recursive: true, mode: 0o700 });
  await writeFile(join(codexHome, "config.toml"), codexConfig(url));
  process.stdout.write(banner({
    url,
    providerUrl,
    models: config.models.map((m) => m.id),
    apiKey: user.apiKey,
    token: user.token,
    sessionId: user.sessionId,
    cli: cliCommand(),
    policyFile: shown(DEMO_POLICY),
    previewFile: shown(previewFile),
    logDir: shown(dir),
    policies,
    codexHome,
  }));
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    // `deno task demo -- --port 0` may hand the `--` on.
    args: process.argv.slice(2).filter((arg, i) => !(i === 0 && arg === "--")),
    options: {
      dir: { type: "string" },
      port: { type: "string" },
      "provider-port": { type: "string" },
    },
  });
  // Listened for from the start: a signal while starting up stops what has started.
  const signalled = new Promise<"signal">((resolve) => {
    process.on("SIGINT", () => resolve("signal"));
    process.on("SIGTERM", () => resolve("signal"));
  });
  const children: Child[] = [];
  let stopping = false;
  const stopAll = async () => {
    stopping = true;
    // The service first: it finishes what it is saying through the provider.
    for (const child of [...children].reverse()) await child.stop();
  };

  const options = { dir: values.dir, port: values.port, providerPort: values["provider-port"] };
  const started = await Promise.race([
    startUp(options, children, () => stopping).then(() => "started" as const, (e: Error) => e),
    signalled,
  ]);
  if (started !== "started") {
    if (started instanceof Error) process.stderr.write(`demo: ${started.message}\n`);
    await stopAll();
    return started instanceof Error ? 1 : 0;
  }

  const crashed = Promise.race(
    children.map((child) => child.exited.then((code) => ({ child, code }))),
  );
  const end = await Promise.race([signalled, crashed]);
  if (end === "signal") process.stderr.write("\ndemo: stopping\n");
  else {process.stderr.write(
      `demo: ${end.child.name} stopped (${end.code}); see ${end.child.logFile}\n`,
    );}
  await stopAll();
  return end === "signal" ? 0 : 1;
}

process.exit(await main());
