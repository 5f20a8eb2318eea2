/**
 * How long a turn waits behind the embedded store's own vacuum: 32 clients
 * run turns back to back on PGlite (a data directory), each session deleted
 * after its tenth turn so dead rows pile up, for `--seconds N` (default 120).
 * The store logs each table it maintains and for how long it held the store's
 * one connection; a turn that overlaps one waits at most that long. Printed:
 * the longest maintenance, and the turns' latency with and without one
 * overlapping them.
 *
 * `deno run --allow-all bench/vacuum_pause.ts [--seconds N]`. Not in CI.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { percentile } from "./measure.ts";
import { executeTurn, startTurnService } from "./turn_http.ts";

const i = process.argv.indexOf("--seconds");
const seconds = Number(i >= 0 ? process.argv[i + 1] : "120");
if (!(seconds > 0)) throw new Error("--seconds: a positive number");
const CLIENTS = 32;
const TURNS_PER_SESSION = 10;

interface Held {
  table: string;
  kind: string;
  ms: number;
  /** Wall-clock start and end (ms since the epoch). */
  from: number;
  to: number;
}
const held: Held[] = [];
const watch = (line: string) => {
  if (!line.includes('"msg":"store maintained"')) return;
  const { time, table, kind, ms } = JSON.parse(line);
  const to = Date.parse(time);
  held.push({ table, kind, ms, from: to - ms, to });
};

const dir = await mkdtemp(join(tmpdir(), "switchyard-vacuum-"));
const s = await startTurnService(undefined, [], { ROUTER_STORAGE_PATH: join(dir, "data") }, watch);
const turns: { from: number; to: number }[] = [];
try {
  s.provider.pace.delayMs = 20;
  const end = Date.now() + seconds * 1000;
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (Date.now() < end) {
      const id = await s.newSession();
      for (let n = 0; n < TURNS_PER_SESSION && Date.now() < end; n++) {
        const from = Date.now();
        await executeTurn(s, id);
        turns.push({ from, to: Date.now() });
      }
      const r = await fetch(`${s.url}/api/v1/sessions/${id}`, {
        method: "DELETE",
        headers: s.headers,
      });
      await r.arrayBuffer();
      if (!r.ok) throw new Error(`delete: ${r.status}`);
    }
  }));
  // The last check of the store's statistics may come after the load ends.
  await new Promise((resolve) => setTimeout(resolve, 1000));
} finally {
  await s.close();
  await rm(dir, { recursive: true, force: true });
}

const overlaps = (t: { from: number; to: number }) =>
  held.some((h) => h.from < t.to && h.to > t.from);
const latency = (list: { from: number; to: number }[]) => {
  const sorted = list.map((t) => t.to - t.from).sort((a, b) => a - b);
  return sorted.length === 0 ? "-" : `${sorted.length} turns, p50 ${percentile(sorted, 50)} ms, ` +
    `p99 ${percentile(sorted, 99)} ms, max ${sorted.at(-1)} ms`;
};
const longest = held.reduce((a, h) => h.ms > a.ms ? h : a, held[0]);
console.log(`\n${CLIENTS} clients, ${seconds} s, ${turns.length} turns on PGlite (data directory)`);
console.log(`maintenance: ${held.length} statements`);
for (const h of [...held].sort((a, b) => b.ms - a.ms).slice(0, 8)) {
  console.log(`  ${h.kind} ${h.table}: ${h.ms.toFixed(1)} ms`);
}
if (longest) {
  console.log(
    `the longest held the store ${longest.ms.toFixed(1)} ms (${longest.kind} ${longest.table})`,
  );
}
console.log(`turns overlapping a maintenance: ${latency(turns.filter(overlaps))}`);
console.log(`turns overlapping none:          ${latency(turns.filter((t) => !overlaps(t)))}`);
