/**
 * The sections measured one request at a time or on the service alone: added
 * latency, history depth, preview. Each prints its table once measured.
 */
import { spread } from "../measure.ts";
import { type Bench, by, progress, type Results } from "./context.ts";
import { loadClient } from "./load_client.ts";
import { coverage, parseServerTiming } from "./server_timing.ts";
import { depthBreakdown } from "./latency.ts";
import { closedLoop, forMs } from "./load.ts";
import { ms, printTable, ratio, whole } from "./report.ts";
import { previewCall } from "./targets.ts";
import { type PhaseScrape, phaseSpreads, scrapePhases } from "./phases.ts";

export async function latencySection(b: Bench, r: Results): Promise<void> {
  const { blocks, perBlock } = b.options.latency;
  const targets = [b.direct, b.held, b.portkey, ...b.services.map((s) => s.target)];
  const direct = (t: (typeof targets)[number]) => t === b.direct || t === b.held;
  await b.provider.setPace({ delayMs: 0 });
  const rows = [];
  for (const name of b.options.clients) {
    const client = loadClient(name);
    progress(`latency (${name} client): ${blocks} blocks of ${perBlock} requests per target …`);
    const before = new Map<string, PhaseScrape>();
    const runs = await client.interleaved(targets, b.options.latency, async () => {
      for (const s of b.services) before.set(s.store, await scrapePhases(s.client.url));
    });
    for (const s of b.services) {
      const after = await scrapePhases(s.client.url);
      r.phases.set(by(name, `${s.target.name}@1`), phaseSpreads(before.get(s.store)!, after));
    }
    const base = spread(runs.get(b.direct)!.times);
    for (const t of targets) {
      const own = spread(runs.get(t)!.times);
      r.added.set(by(name, t.name), { p50: own.p50 - base.p50, p99: own.p99 - base.p99 });
    }
    for (const s of b.services) {
      const run = runs.get(s.target)!;
      const covered = coverage(run.times, run.timings, base.p50);
      if (covered) r.coverage.set(by(name, s.target.name), covered);
    }
    const held = runs.get(b.held)!;
    const transport = held.times.map((t, i) =>
      t - (parseServerTiming(held.timings[i] ?? "").get("hold") ?? NaN)
    ).filter(Number.isFinite);
    if (transport.length > 0) r.afterPause.set(name, spread(transport).p50);
    const theirs = r.added.get(by(name, b.portkey.name))!;
    for (const t of targets) {
      const run = runs.get(t)!;
      const own = spread(run.times);
      const added = r.added.get(by(name, t.name))!;
      const ours = b.services.some((s) => s.target === t);
      const onPostgres = b.services.some((s) => s.target === t && s.store === "PostgreSQL");
      rows.push([
        t.name,
        name,
        run.times.length,
        ms(own.p50),
        ms(own.p99),
        direct(t) ? "—" : ms(added.p50),
        direct(t) ? "—" : ms(added.p99),
        ours ? ratio(added.p50, theirs.p50) : "—",
        ours ? ratio(added.p99, theirs.p99) : "—",
        ms(run.cpuMsPerRequest),
        onPostgres ? ms(run.databaseCpuMsPerRequest) : "—",
      ]);
    }
  }
  printTable(
    `1. Added latency at concurrency 1 (request time minus the same Chat Completions request sent to the fake provider directly; targets interleaved in blocks of ${perBlock} after ${b.options.latency.warmUp} warm-up requests each). Service: a persisted buffered turn, each block of ${perBlock} on one session (depth 0 to ${
      perBlock - 1
    }); Portkey: the same messages as Chat Completions. Load generators (each on its own clock, one after the other): ${
      b.options.clients.map((c) => `${c}: ${loadClient(c).label}`).join("; ")
    }. CPU: the target process's utime+stime from /proc over its own blocks (the fake provider's, for the direct row); database CPU: the PostgreSQL server's processes over the service's blocks`,
    [
      "target",
      "client",
      "requests",
      "p50 ms",
      "p99 ms",
      "added p50 ms",
      "added p99 ms",
      "added p50 ours/Portkey",
      "added p99 ours/Portkey",
      "CPU ms/request",
      "database CPU ms/request",
    ],
    rows,
  );
}

export async function depthSection(b: Bench, r: Results): Promise<void> {
  await b.provider.setPace({ delayMs: 0 });
  const rows = [];
  for (const s of b.services) {
    progress(`depth: one session to 200 turns on ${s.store} …`);
    const buckets = await depthBreakdown(s.target, b.provider);
    r.depth.set(s.target.name, buckets);
    for (const k of buckets) {
      rows.push([
        s.store,
        `${k.from}–${k.to}`,
        ms(k.turn.p50),
        ms(k.added.p50),
        ms(k.added.p99),
        ms(k.fresh.p50),
        ratio(k.turn.p50, k.fresh.p50),
        ms(k.freshAdded.p50),
        ratio(k.added.p50, k.freshAdded.p50),
      ]);
    }
    const [first, last] = [buckets[0], buckets.at(-1)!];
    rows.push([
      s.store,
      `${last.from}–${last.to} / ${first.from}–${first.to}`,
      ratio(last.turn.p50, first.turn.p50),
      ratio(last.added.p50, first.added.p50),
      ratio(last.added.p99, first.added.p99),
      ratio(last.fresh.p50, first.fresh.p50),
      "",
      ratio(last.freshAdded.p50, first.freshAdded.p50),
      "",
    ]);
  }
  printTable(
    "2. History depth: one session driven turn by turn to 200 turns; a turn's added latency is its time minus the provider answering the very body the service sent it. Each turn is paired with one on a fresh session (depth 0, same moment; which goes first alternates), measured the same way: the ratio columns set the two side by side, cancelling the machine's drift between buckets; the last one compares what the service adds, leaving out the provider's own time on a longer prompt",
    [
      "store",
      "depth (turns before)",
      "turn p50 ms",
      "added p50 ms",
      "added p99 ms",
      "fresh-session turn p50 ms",
      "turn p50 / fresh p50",
      "fresh-session added p50 ms",
      "added p50 / fresh added p50",
    ],
    rows,
  );
}

export async function previewSection(b: Bench, r: Results): Promise<void> {
  const rows = [];
  for (const s of b.services) {
    const call = await previewCall(s.client);
    for (const clients of b.options.previewClients) {
      progress(`preview: ${s.store}, ${clients} clients …`);
      await closedLoop(clients, forMs(1000), call); // warm up
      const loop = await closedLoop(clients, forMs(b.options.previewSeconds * 1000), call);
      if (loop.errors.length > 0) throw new Error(`preview failed: ${loop.errors[0]}`);
      const perSecond = loop.times.length / (loop.wallMs / 1000);
      r.preview.set(`${s.target.name}@${clients}`, perSecond);
      const { p50, p99 } = spread(loop.times);
      rows.push([s.store, clients, whole(perSecond), ms(p50), ms(p99)]);
    }
  }
  printTable(
    `5. POST /api/v1/sessions/{id}/preview (TURN_BODY's policy, listings cached), ${b.options.previewSeconds} s per row after 1 s of warm-up (service only)`,
    ["store", "clients", "requests/s", "p50 ms", "p99 ms"],
    rows,
  );
}
