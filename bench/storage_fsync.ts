/**
 * What `router.storage.fsync` costs: the embedded store on a data directory,
 * fsync off and on, alternated (`--rounds N`, default 2) so that the shared
 * machine's drift falls on both. Per setting: the service's added latency at
 * one client (execute time minus the provider's own) and turns per second at
 * 32 clients with the provider answering in 20 ms.
 *
 * `deno task bench:fsync [--rounds N]`. Not in CI.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import type { BenchRow } from "./measure.ts";
import {
  measureOverhead,
  measureThroughput,
  type OverheadRow,
  startTurnService,
} from "./turn_http.ts";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const rounds = Number(arg("rounds", "2"));
if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds: an integer ≥ 1");

const rows: { fsync: boolean; overhead: OverheadRow; throughput: BenchRow }[] = [];
for (let round = 0; round < rounds; round++) {
  for (const fsync of [false, true]) {
    const dir = await mkdtemp(join(tmpdir(), "switchyard-fsync-"));
    const s = await startTurnService(undefined, [], {
      ROUTER_STORAGE_PATH: join(dir, "data"),
      ROUTER_STORAGE_FSYNC: String(fsync),
    });
    try {
      const name = `fsync ${fsync ? "on" : "off"}`;
      const overhead = await measureOverhead(s, name, 300);
      const throughput = await measureThroughput(s, name, {
        total: 2000,
        clients: 32,
        delayMs: 20,
      });
      rows.push({ fsync, overhead, throughput });
      console.error(`round ${round + 1}, ${name}: ${throughput.perSecond.toFixed(0)} turns/s`);
    } finally {
      await s.close();
      await rm(dir, { recursive: true, force: true });
    }
  }
}

const f = (ms: number) => ms.toFixed(2);
console.log(
  "\n| fsync | round | added p50 ms (1 client) | added p99 ms | turns/s (32 clients) | p50 ms | p99 ms |",
);
console.log("|---|---:|---:|---:|---:|---:|---:|");
rows.forEach((r, i) => {
  console.log(
    `| ${r.fsync ? "on" : "off"} | ${Math.floor(i / 2) + 1} | ${f(r.overhead.added.p50)} | ${
      f(r.overhead.added.p99)
    } | ${r.throughput.perSecond.toFixed(0)} | ${f(r.throughput.p50)} | ${f(r.throughput.p99)} |`,
  );
});
