/**
 * `deno task bench:first-start`: what a newcomer waits for, beside the peer, in one run. A fresh
 * clone of this repository is started with `npx -y deno@2 task start` from an empty npm and Deno
 * cache (an empty HOME), and so is Portkey's gateway with `npx -y @portkey-ai/gateway@1.15.2`;
 * each is timed until it answers its first request. Then the service is stopped and started
 * again from the same HOME (the restart a user makes every day). Printed as a markdown table:
 * seconds until the first answer and their ratio, what each left on disk, and each one's peak
 * resident memory (VmHWM of the process that serves, and of the largest process of the tree).
 *
 * Both downloads come from the same registry in the same minute, so the ratio holds the network
 * roughly constant; absolute seconds depend on it and on the machine.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { freePort } from "./peers/portkey.ts";

const REPO = fileURLToPath(new URL("../", import.meta.url));
const PORTKEY = "@portkey-ai/gateway@1.15.2";
const DEADLINE_MS = 10 * 60_000;

interface Started {
  seconds: number;
  /** Peak resident memory in MB of the serving process, and of any process of the tree. */
  servingPeakMb: number;
  treePeakMb: number;
}

/** VmHWM (a process's own peak resident memory) and VmRSS, in MB; null once it has exited. */
function memoryMb(pid: number): { hwm: number; rss: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (field: string) =>
      Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1]);
    return { hwm: kb("VmHWM") / 1024, rss: kb("VmRSS") / 1024 };
  } catch {
    return null;
  }
}

function zombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "Z";
  } catch {
    return true;
  }
}

/** Every live process below `root`, with its command line. */
function descendants(root: number): { pid: number; command: string }[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // Gone while the list was read.
    }
  }
  const found: { pid: number; command: string }[] = [];
  const walk = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      let command = "";
      try {
        command = readFileSync(`/proc/${child}/cmdline`, "utf8").replaceAll("\0", " ");
      } catch {
        continue;
      }
      found.push({ pid: child, command });
      walk(child);
    }
  };
  walk(root);
  return found;
}

/**
 * Runs `command` in `cwd` with `env` until `url` answers, sampling the memory of its whole
 * process tree; `serving` names the process that serves. The tree is left running.
 */
async function startUntilAnswer(
  command: string[],
  cwd: string,
  env: Record<string, string>,
  url: string,
  serving: RegExp,
): Promise<Started & { stop(): Promise<void> }> {
  const started = performance.now();
  const child = spawn(command[0], command.slice(1), {
    cwd,
    env,
    detached: true,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk) => stderr = (stderr + chunk).slice(-4000));
  let servingPeakMb = 0;
  let treePeakMb = 0;
  const sample = () => {
    for (const { pid, command } of descendants(child.pid!)) {
      const memory = memoryMb(pid);
      if (memory === null) continue;
      const peak = Math.max(memory.hwm, memory.rss);
      treePeakMb = Math.max(treePeakMb, peak);
      if (serving.test(command)) servingPeakMb = Math.max(servingPeakMb, peak);
    }
  };
  // The whole tree, not only npx: the service drains after npx itself has exited.
  const stop = async () => {
    const tree = [child.pid!, ...descendants(child.pid!).map((p) => p.pid)];
    const alive = () => tree.filter((pid) => existsSync(`/proc/${pid}`) && !zombie(pid));
    const signal = (name: "SIGTERM" | "SIGKILL") => {
      for (const pid of alive()) {
        try {
          process.kill(pid, name);
        } catch {
          // Gone meanwhile.
        }
      }
    };
    signal("SIGTERM");
    for (let waited = 0; alive().length > 0; waited += 50) {
      if (waited === 10_000) signal("SIGKILL");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  while (performance.now() - started < DEADLINE_MS) {
    if (child.exitCode !== null) {
      throw new Error(`${command.join(" ")} exited with ${child.exitCode}:\n${stderr}`);
    }
    sample();
    try {
      const response = await fetch(url);
      await response.body?.cancel();
      const seconds = (performance.now() - started) / 1000;
      // A last look, for the peak of start-up itself (VmHWM keeps it).
      sample();
      return { seconds, servingPeakMb, treePeakMb, stop };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  await stop();
  throw new Error(`${command.join(" ")} did not answer within ${DEADLINE_MS / 1000} s`);
}

/** The Deno binary that `npx -y deno@2` installed under `npxCache`. */
function findDeno(npxCache: string): string {
  for (const entry of readdirSync(npxCache)) {
    const bin = join(npxCache, entry, "node_modules/.bin/deno");
    if (existsSync(bin)) return bin;
  }
  throw new Error(`no Deno under ${npxCache}`);
}

function sizeMb(path: string): number | null {
  if (!existsSync(path)) return null;
  const du = spawnSync("du", ["-sk", path], { encoding: "utf8" });
  return Number(du.stdout.split("\t")[0]) / 1024;
}

/** This environment with a HOME that caches nothing yet (certificates and proxies kept). */
async function emptyHome(root: string, name: string): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(DENO_DIR|XDG_CACHE_HOME|npm_config_cache)$/i.test(key)) {
      env[key] = value;
    }
  }
  return { ...env, HOME: await mkdtemp(join(root, `${name}-home-`)), NO_COLOR: "1" };
}

const mb = (value: number | null) => value === null ? "–" : `${value.toFixed(0)} MB`;
const s = (value: number) => `${value.toFixed(1)} s`;

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), "switchyard-first-start-"));
  try {
    const clone = join(root, "switchyard");
    const cloned = spawnSync("git", ["clone", "-q", REPO, clone], { encoding: "utf8" });
    if (cloned.status !== 0) throw new Error(`git clone failed: ${cloned.stderr}`);
    const head = spawnSync("git", ["rev-parse", "--short", "HEAD"], {
      cwd: clone,
      encoding: "utf8",
    });

    console.error("Portkey from an empty cache …");
    const portkeyEnv = await emptyHome(root, "portkey");
    const portkeyPort = await freePort();
    const portkey = await startUntilAnswer(
      ["npx", "-y", PORTKEY, `--port=${portkeyPort}`, "--headless"],
      root,
      portkeyEnv,
      `http://127.0.0.1:${portkeyPort}/`,
      /start-server|gateway/,
    );
    await portkey.stop();

    console.error("Switchyard from a fresh clone and an empty cache …");
    const oursEnv = await emptyHome(root, "switchyard");
    const port = await freePort();
    const env = { ...oursEnv, PORT: String(port) };
    const status = `http://127.0.0.1:${port}/status`;
    const serving = /src\/runtime\/deno\.ts/;
    const start = ["npx", "-y", "deno@2", "task", "start"];
    const first = await startUntilAnswer(start, clone, env, status, serving);
    await first.stop();
    console.error("and again, restarted …");
    const again = await startUntilAnswer(start, clone, env, status, serving);
    await again.stop();
    // The same restart without npx, which asks the registry for Deno's latest 2.x every time.
    const deno = findDeno(join(oursEnv.HOME, ".npm/_npx"));
    const direct = await startUntilAnswer([deno, "task", "start"], clone, env, status, serving);
    await direct.stop();

    const home = oursEnv.HOME;
    console.log(
      `\n## First start from an empty cache (Switchyard ${head.stdout.trim()}, ${PORTKEY})\n`,
    );
    console.log("| measure | Portkey | Switchyard | ratio |");
    console.log("|---|---:|---:|---:|");
    console.log(
      `| first answer, from an empty cache | ${s(portkey.seconds)} | ${s(first.seconds)} | ${
        (first.seconds / portkey.seconds).toFixed(2)
      }× |`,
    );
    console.log(`| restart with npx, until the first answer | – | ${s(again.seconds)} | |`);
    console.log(`| restart with \`deno task start\` | – | ${s(direct.seconds)} | |`);
    console.log(
      `| peak RSS of the serving process, first start | ${mb(portkey.servingPeakMb)} | ${
        mb(first.servingPeakMb)
      } | |`,
    );
    console.log(
      `| peak RSS of any process of the start | ${mb(portkey.treePeakMb)} | ${
        mb(first.treePeakMb)
      } | |`,
    );
    console.log(`| node_modules of the clone | – | ${mb(sizeMb(join(clone, "node_modules")))} | |`);
    console.log(
      `| npm cache | ${mb(sizeMb(join(portkeyEnv.HOME, ".npm")))} | ${
        mb(sizeMb(join(home, ".npm")))
      } | |`,
    );
    console.log(`| Deno cache | – | ${mb(sizeMb(join(home, ".cache/deno")))} | |`);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

await main();
