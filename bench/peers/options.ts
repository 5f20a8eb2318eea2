/**
 * What one `deno task bench:peers` run measures and how much: flags or
 * environment variables, a flag winning. `--quick` (BENCH_QUICK=1) shrinks
 * every count for iterating; `--only=latency,depth,…` (BENCH_ONLY) runs some
 * sections; `--stores=pglite,postgres` (BENCH_STORES) picks the stores;
 * `--client=deno|node|both` (BENCH_CLIENT, default both) the load generator
 * of the latency and throughput sections (with both, each measures with
 * both; the Node.js one is the first, the one the other sections' and the
 * targets' single-client rows use); `--runs=N` (BENCH_RUNS, default 1) runs
 * the measured sections N times, the targets table giving each run's figure
 * and their median.
 */
import type { Blocks } from "./latency.ts";
import { type ClientName, CLIENTS } from "./load_client.ts";

export const SECTIONS = [
  "latency",
  "depth",
  "throughput",
  "streams",
  "preview",
  "compatible",
  "budget",
] as const;
export type Section = typeof SECTIONS[number];
export const STORES = ["pglite", "postgres"] as const;
export type Store = typeof STORES[number];

export interface PeerOptions {
  quick: boolean;
  sections: Set<Section>;
  stores: Set<Store>;
  /** The load generators of the latency and throughput sections, the first the primary one. */
  clients: ClientName[];
  runs: number;
  latency: Blocks;
  throughputClients: number[];
  /** About how long each throughput row runs. */
  throughputSeconds: number;
  streamLevels: number[];
  previewClients: number[];
  /** How long each preview row runs. */
  previewSeconds: number;
}

function listOf<T extends string>(
  name: string,
  raw: string | undefined,
  allowed: readonly T[],
) {
  if (raw === undefined || raw === "") return new Set(allowed);
  const picked = raw.split(",").map((s) => s.trim());
  const unknown = picked.filter((p) => !allowed.includes(p as T));
  if (unknown.length > 0) {
    throw new Error(
      `${name}: unknown ${unknown.join(", ")} (choose from ${allowed.join(", ")})`,
    );
  }
  return new Set(picked as T[]);
}

export function readOptions(
  args: string[],
  env: Record<string, string | undefined>,
): PeerOptions {
  const flags = new Map<string, string>();
  for (const arg of args) {
    const match = /^--(quick|only|stores|client|runs)(?:=(.*))?$/.exec(arg);
    if (!match) {
      throw new Error(
        `unknown argument ${arg} (use --quick, --only=…, --stores=…, --client=…, --runs=…)`,
      );
    }
    flags.set(match[1], match[2] ?? "1");
  }
  const quick = (flags.get("quick") ?? env.BENCH_QUICK ?? "") === "1";
  const client = flags.get("client") ?? env.BENCH_CLIENT ?? "both";
  if (client !== "both" && !CLIENTS.includes(client as ClientName)) {
    throw new Error(`--client: unknown ${client} (choose deno, node or both)`);
  }
  const runs = Number(flags.get("runs") ?? env.BENCH_RUNS ?? "1");
  if (!Number.isInteger(runs) || runs < 1) {
    throw new Error(`--runs: ${runs} is not a whole number of runs ≥ 1`);
  }
  return {
    quick,
    sections: listOf("--only", flags.get("only") ?? env.BENCH_ONLY, SECTIONS),
    stores: listOf("--stores", flags.get("stores") ?? env.BENCH_STORES, STORES),
    clients: client === "both" ? ["node", "deno"] : [client as ClientName],
    runs,
    latency: quick
      ? { blocks: 4, perBlock: 25, warmUp: 10 }
      : { blocks: 40, perBlock: 50, warmUp: 200 },
    throughputClients: [32, 64],
    throughputSeconds: quick ? 3 : 10,
    streamLevels: quick ? [128, 512] : [128, 512, 1024],
    previewClients: [1, 32],
    previewSeconds: quick ? 2 : 5,
  };
}
