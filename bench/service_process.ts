/**
 * The service as a user starts it, for the HTTP benchmarks: this runtime, its
 * own entry file, a free port, and an environment the benchmark chooses (the
 * caller's DATABASE_URL and ROUTER_CONFIG are dropped so a benchmark never
 * touches a database it did not name).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import process from "node:process";
import { fileURLToPath } from "node:url";

export const root = fileURLToPath(new URL("../", import.meta.url));
const onBun = process.versions.bun !== undefined;

export interface ServiceProcess {
  url: string;
  /** The service's process id, for reading its CPU time and memory from /proc. */
  pid: number;
  /** The last few error lines the service logged, to explain a failed benchmark. */
  recentErrors(): string[];
  /** Sends `signal` (e.g. SIGKILL for a crash, SIGTERM for a shutdown). */
  kill(signal: NodeJS.Signals): void;
  /**
   * The exit code once the process ended: 0 for a clean shutdown (the service
   * logged `stopped`), even where the runtime's child_process reports the
   * signal it was sent instead of the code (Deno).
   */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

const KEPT_ERRORS = 12;

/**
 * How this runtime runs a TypeScript entry file (relative to the project root);
 * `runtimeFlags` go to the runtime before the entry file (e.g. `--inspect=127.0.0.1:9229`).
 */
export function runtimeArgs(file: string, runtimeFlags: readonly string[] = []): string[] {
  return onBun
    ? [...runtimeFlags, file]
    : ["run", "--allow-all", DENO_V8_FLAGS, ...runtimeFlags, file];
}

/** The V8 flags of `deno task start` (deno.json), so the benchmarks measure what users run. */
const DENO_V8_FLAGS = "--v8-flags=--expose-gc,--max-semi-space-size=8";
/** The glibc malloc settings of `deno task start` and the container image. */
const DENO_MALLOC_ENV = { MALLOC_MMAP_THRESHOLD_: "65536", MALLOC_TRIM_THRESHOLD_: "131072" };

/**
 * One bench user sends thousands of requests a second: far above the default
 * per-user limit, which is left on (its cost is part of what is measured) but
 * raised out of reach.
 */
export const BENCH_RATE_LIMITS = {
  ROUTER_LIMITS_RATE_USER_PER_MINUTE: "1000000000",
  ROUTER_LIMITS_RATE_USER_BURST: "1000000",
};

/** The README's own start command (on Deno): what a user types. */
export const README_START = ["npx", "-y", "deno@2", "task", "start"] as const;

/** The process under `pid` (itself included) whose command line holds `needle`; null: none yet. */
function descendantRunning(pid: number, needle: string): number | null {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // The process ended while the list was read.
    }
  }
  const queue = [pid];
  while (queue.length > 0) {
    const p = queue.shift()!;
    try {
      if (readFileSync(`/proc/${p}/cmdline`, "utf8").includes(needle)) return p;
    } catch {
      // Gone meanwhile.
    }
    queue.push(...(children.get(p) ?? []));
  }
  return null;
}

export function startService(
  env: Record<string, string>,
  runtimeFlags: readonly string[] = [],
  /** Hears every line the service logs once it listens (a benchmark reading the store's maintenance). */
  watch: (line: string) => void = () => {},
  /**
   * Start it with README_START (under Deno; `runtimeFlags` then do not apply):
   * the reported pid is the service's own process beneath the task runner.
   */
  readme = false,
): Promise<ServiceProcess> {
  const viaReadme = readme && !onBun;
  const args = runtimeArgs(onBun ? "src/runtime/bun.ts" : "src/runtime/deno.ts", runtimeFlags);
  const base = { ...process.env };
  delete base.DATABASE_URL;
  delete base.ROUTER_CONFIG;
  const [command, ...commandArgs] = viaReadme ? README_START : [process.execPath, ...args];
  const child: ChildProcess = spawn(command, commandArgs, {
    cwd: root,
    env: {
      ...base,
      ...(onBun ? {} : DENO_MALLOC_ENV),
      PORT: "0",
      ROUTER_STORAGE_PATH: "memory://",
      ...BENCH_RATE_LIMITS,
      ...env,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let servicePid = child.pid!;
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      // Under a task runner the service itself is told, as Ctrl-C in a terminal would reach it.
      if (servicePid !== child.pid) process.kill(servicePid, "SIGTERM");
      else child.kill("SIGTERM");
    });
  let stopped = false;
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => resolve(code ?? (stopped ? 0 : null)))
  );
  const errors: string[] = [];
  let partial = "";
  // Keep draining the request log so the pipe never fills, holding on to errors only:
  // error-level log lines, and lines that are no log record at all (a crash's stack trace).
  const keepErrors = (chunk: Uint8Array) => {
    const lines = (partial + new TextDecoder().decode(chunk)).split("\n");
    partial = lines.pop()!;
    for (const l of lines) {
      watch(l);
      if (l.includes('"level":"error"') || !l.startsWith("{")) errors.push(l);
    }
    stopped ||= lines.some((l) => l.includes('"msg":"stopped"'));
    errors.splice(0, Math.max(0, errors.length - KEPT_ERRORS));
  };
  child.on("exit", (code, signal) => errors.push(`(the service exited: ${code ?? signal})`));
  return new Promise((resolve, reject) => {
    let output = "";
    const onData = (chunk: Uint8Array) => {
      output += new TextDecoder().decode(chunk);
      const line = output.split("\n").find((l) => l.includes('"msg":"listening"'));
      if (line === undefined) return;
      child.stderr!.off("data", onData);
      child.stderr!.on("data", keepErrors);
      if (viaReadme) {
        servicePid = descendantRunning(child.pid!, "src/runtime/deno.ts") ?? servicePid;
      }
      resolve({
        url: JSON.parse(line).url,
        pid: servicePid,
        recentErrors: () => [...errors],
        kill: (signal) =>
          servicePid === child.pid ? child.kill(signal) : process.kill(servicePid, signal),
        exited,
        stop,
      });
    };
    child.stderr!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`service exited with ${code}:\n${output}`)));
  });
}

/** POSTs JSON and returns the parsed answer; a non-2xx answer is an error, never a data point. */
export async function postJson(
  url: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  const response = await fetch(`${url}${path}`, {
    method: "POST",
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** Bootstraps the first user and signs in: the bearer header every later call sends. */
export async function signedIn(url: string): Promise<Record<string, string>> {
  const boot = await postJson(url, "/api/v1/auth/bootstrap", {});
  const { token } = await postJson(url, "/api/v1/auth/sign-in", {
    "x-router-api-key": boot.api_key,
  });
  return { authorization: `Bearer ${token}` };
}

export async function newSession(url: string, auth: Record<string, string>): Promise<string> {
  const { session } = await postJson(url, "/api/v1/sessions", auth, { title: "bench" });
  return session.id as string;
}
