/**
 * What one `deno task bench:peers` run measures and how much: flags or
 * environment variables, a flag winning. `--quick` (BENCH_QUICK=1) shrinks
 * every count for iterating; `--only=latency,depth,…` (BENCH_ONLY) runs some
 * sections; `--stores=pglite,postgres` (BENCH_STORES) picks the stores.
 */
import type { Blocks } from "./latency.ts";

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
    const match = /^--(quick|only|stores)(?:=(.*))?$/.exec(arg);
    if (!match) {
      throw new Error(
        `unknown argument ${arg} (use --quick, --only=…, --stores=…)`,
      );
    }
    flags.set(match[1], match[2] ?? "1");
  }
  const quick = (flags.get("quick") ?? env.BENCH_QUICK ?? "") === "1";
  return {
    quick,
    sections: listOf("--only", flags.get("only") ?? env.BENCH_ONLY, SECTIONS),
    stores: listOf("--stores", flags.get("stores") ?? env.BENCH_STORES, STORES),
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
