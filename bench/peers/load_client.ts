/**
 * The two load generators the peer benchmark can measure with: this Deno
 * process (fetch), or a Node.js child process (node/load.mjs, `node:http`),
 * separate from every target as a user's client is. Both run the same
 * interleaved blocks and closed loops on their own single clock; the Node.js
 * one asks this process for each block's conversation (made outside the
 * timing) and for the moment the warm-up is over.
 */
import { spawn } from "node:child_process";
import process from "node:process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { type Blocks, interleavedLatency, type Sequential } from "./latency.ts";
import { localLoop, type LoopJob, type LoopResult, type RunLoop } from "./load.ts";
import type { Target } from "./targets.ts";

export const CLIENTS = ["deno", "node"] as const;
export type ClientName = typeof CLIENTS[number];

export interface LoadClient {
  name: ClientName;
  /** What it is, for the tables' captions. */
  label: string;
  interleaved(
    targets: Target[],
    o: Blocks,
    warm?: () => Promise<void>,
  ): Promise<Map<Target, Sequential>>;
  loop: RunLoop;
}

const runtime = () =>
  "Bun" in globalThis ? `Bun ${process.versions.bun}` : `Deno ${process.versions.deno}`;

export const denoClient: LoadClient = {
  name: "deno",
  get label() {
    return `${runtime()} fetch, in the benchmark's own process`;
  },
  interleaved: interleavedLatency,
  loop: localLoop,
};

const LOAD_MJS = fileURLToPath(new URL("./node/load.mjs", import.meta.url));

/** Runs one job in a fresh `node` process, answering its asks. */
function nodeJob<T>(
  job: Record<string, unknown>,
  answer: (ask: Record<string, unknown>) => Promise<unknown> = () => Promise.resolve({}),
): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn("node", [LOAD_MJS], { stdio: ["pipe", "pipe", "inherit"] });
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      child.kill();
      reject(error);
    };
    child.once("error", fail);
    child.once("close", (code) => fail(new Error(`node load generator exited with ${code}`)));
    const write = (message: unknown) => child.stdin!.write(`${JSON.stringify(message)}\n`);
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const message = JSON.parse(line);
      if (message.ask !== undefined) {
        answer(message.ask).then(write, fail);
      } else if (message.result !== undefined) {
        settled = true;
        child.stdin!.end();
        resolve(message.result as T);
      } else {
        fail(new Error(`node load generator: ${message.error ?? line}`));
      }
    });
    write(job);
  });
}

let nodeVersion: string | undefined;

export const nodeClient: LoadClient = {
  name: "node",
  get label() {
    return `Node.js ${
      nodeVersion ?? "(version not read)"
    } node:http (keep-alive), a process of its own (bench/peers/node/load.mjs)`;
  },
  async interleaved(targets, o, warm = () => Promise.resolve()) {
    const runs = await nodeJob<
      { times: number[]; timings: (string | null)[]; cpu: number; database: number }[]
    >(
      {
        kind: "interleaved",
        targets: targets.map((t) => ({ pid: t.pid })),
        blocks: o.blocks,
        perBlock: o.perBlock,
        warmUp: o.warmUp,
      },
      async (ask) => {
        if (ask.warm) {
          await warm();
          return {};
        }
        const target = targets[ask.wire as number];
        const [conversation] = await target.conversations(1);
        return target.wire(conversation);
      },
    );
    return new Map(targets.map((t, i) => [t, {
      times: runs[i].times,
      timings: runs[i].timings,
      cpuMsPerRequest: runs[i].cpu / runs[i].times.length,
      databaseCpuMsPerRequest: runs[i].database / runs[i].times.length,
    }]));
  },
  loop(target: Target, job: LoopJob): Promise<LoopResult> {
    return nodeJob<LoopResult>({
      kind: "closed",
      clients: job.clients,
      wires: job.conversations.map((list) => list.map((c) => target.wire(c))),
      perSession: job.perSession,
      firstCall: job.firstCall,
      ms: job.ms,
      count: job.count,
      pid: job.pid,
    });
  },
};

/** Node.js's version, read once (the Node.js client's caption). */
export async function readNodeVersion(): Promise<string> {
  nodeVersion ??= await new Promise<string>((resolve, reject) => {
    const child = spawn("node", ["--version"], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout!.on("data", (chunk) => (out += chunk));
    child.once("error", reject);
    child.once("exit", () => resolve(out.trim()));
  });
  return nodeVersion;
}

export const loadClient = (name: ClientName) => name === "deno" ? denoClient : nodeClient;
