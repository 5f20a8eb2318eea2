/**
 * The demo as a newcomer starts it, for the tests that follow its printed
 * commands: the launcher of `deno task demo` (`bun demo/main.ts` under Bun) on
 * free ports and a scratch directory, with no provider key anywhere in its
 * environment; its banner once printed; and the CLI from source, run as the
 * printed commands run it (key and URL from the environment).
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const onBun = process.versions.bun !== undefined;

/** The environment of everything started here: no provider key of any kind. */
export function keylessEnv(
  extra: Record<string, string> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (
      value === undefined ||
      /_API_KEY$|^ROUTER_|^DATABASE_URL$|^SWITCHYARD_|^CODEX_/.test(name)
    ) continue;
    env[name] = value;
  }
  return { ...env, NO_COLOR: "1", ...extra };
}

/** `deno task demo` without its install step: the task's own `deno run` line. */
async function launcherArgs(dir: string): Promise<string[]> {
  const options = ["--dir", dir, "--port", "0", "--provider-port", "0"];
  if (onBun) return ["demo/main.ts", ...options];
  const tasks = JSON.parse(await readFile(join(ROOT, "deno.json"), "utf8")).tasks;
  const run = (tasks.demo as string).split("&&").at(-1)!.trim().split(/\s+/);
  assert.equal(run[0], "deno");
  return [...run.slice(1), ...options];
}

export interface LaunchedDemo {
  child: ChildProcess;
  banner: string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  /** What the launcher printed on stderr so far. */
  stderr(): string;
  /** The first group of `pattern` in the banner; fails the test when it is not there. */
  find(pattern: RegExp): string;
}

/** Launchers not yet stopped: a failed assertion must not leave a demo running. */
const running = new Set<ChildProcess>();

/** Stops every demo still running (for `after`). */
export async function stopRunningDemos(): Promise<void> {
  for (const child of running) {
    const gone = new Promise((resolve) => child.once("exit", resolve));
    process.kill(child.pid!, "SIGTERM");
    await gone;
  }
}

/** Starts the demo in `dir` and waits (at most 120 s) for its banner. */
export async function launchDemo(dir: string): Promise<LaunchedDemo> {
  const child = spawn(process.execPath, await launcherArgs(dir), {
    cwd: ROOT,
    env: keylessEnv(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  running.add(child);
  void exited.then(() => running.delete(child));
  let out = "";
  let err = "";
  child.stderr!.on("data", (chunk: Uint8Array) => (err += new TextDecoder().decode(chunk)));
  const banner = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGTERM");
      reject(new Error(`the demo did not print its banner in 120 s:\n${out}\n${err}`));
    }, 120_000);
    child.stdout!.on("data", (chunk: Uint8Array) => {
      out += new TextDecoder().decode(chunk);
      if (out.includes("Stop with Ctrl-C.")) {
        clearTimeout(timer);
        resolve(out);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the demo exited (${code}) before its banner:\n${out}\n${err}`));
    });
  });
  return {
    child,
    banner,
    exited,
    stderr: () => err,
    find: (pattern: RegExp) => {
      const match = pattern.exec(banner);
      assert.ok(match, `${pattern} not in the banner:\n${banner}`);
      return match[1];
    },
  };
}

/**
 * By pid, not `child.kill`: Deno's child_process then reports the exit as the
 * signal even when the process handled it and exited with 0.
 */
export const signalDemo = (demo: { child: ChildProcess }, name: "SIGTERM" | "SIGINT") =>
  process.kill(demo.child.pid!, name);

/** The CLI from source, as the printed commands run it: key and URL from the environment. */
export function runCli(
  args: string[],
  env: { url: string; apiKey: string; configHome: string },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const main = "clients/typescript/src/cli/main.ts";
  const argv = onBun ? [main, ...args] : ["run", "--allow-all", "--quiet", main, ...args];
  const child = spawn(process.execPath, argv, {
    cwd: ROOT,
    env: keylessEnv({
      SWITCHYARD_URL: env.url,
      SWITCHYARD_API_KEY: env.apiKey,
      XDG_CONFIG_HOME: env.configHome,
    }),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (c: Uint8Array) => (stdout += new TextDecoder().decode(c)));
  child.stderr!.on("data", (c: Uint8Array) => (stderr += new TextDecoder().decode(c)));
  child.stdin!.end("");
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}
