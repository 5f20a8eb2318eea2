/**
 * The measured sections of the peer benchmark, each printing its table as
 * soon as it is measured and keeping its numbers for the "Done when" summary.
 */
import process from "node:process";
import { spread } from "../measure.ts";
import type { ServiceClient } from "../turn_http.ts";
import { depthBreakdown, type DepthBucket, interleavedLatency } from "./latency.ts";
import {
  closedLoop,
  forMs,
  STREAM_PACE,
  type StreamLevel,
  streams,
  type Throughput,
  throughput,
} from "./load.ts";
import type { PeerOptions } from "./options.ts";
import type { ProviderProcess } from "./provider_process.ts";
import { ms, printTable, ratio, whole } from "./report.ts";
import { previewCall, type Target } from "./targets.ts";

export interface Service {
  store: string;
  target: Target;
  client: ServiceClient;
}

export interface Bench {
  options: PeerOptions;
  provider: ProviderProcess;
  direct: Target;
  portkey: Target;
  services: Service[];
}

/** Numbers kept for the summary, keyed by target name (and `@clients` / `@streams`). */
export interface Results {
  added: Map<string, { p50: number; p99: number }>;
  depth: Map<string, DepthBucket[]>;
  throughput: Map<string, Throughput>;
  streams: Map<string, StreamLevel>;
  preview: Map<string, number>;
}

export const newResults = (): Results => ({
  added: new Map(),
  depth: new Map(),
  throughput: new Map(),
  streams: new Map(),
  preview: new Map(),
});

const progress = (line: string) => process.stderr.write(`${line}\n`);

export async function latencySection(b: Bench, r: Results): Promise<void> {
  const { blocks, perBlock } = b.options.latency;
  progress(`latency: ${blocks} blocks of ${perBlock} requests per target …`);
  const targets = [b.direct, b.portkey, ...b.services.map((s) => s.target)];
  await b.provider.setPace({ delayMs: 0 });
  const times = await interleavedLatency(targets, b.options.latency);
  const base = spread(times.get(b.direct)!);
  for (const t of targets) {
    const own = spread(times.get(t)!);
    r.added.set(t.name, { p50: own.p50 - base.p50, p99: own.p99 - base.p99 });
  }
  const theirs = r.added.get(b.portkey.name)!;
  printTable(
    "1. Added latency at concurrency 1 (request time minus the same Chat Completions request sent to the fake provider directly; targets interleaved in blocks). Service: a persisted buffered turn on a fresh session; Portkey: the same messages as Chat Completions",
    [
      "target",
      "requests",
      "p50 ms",
      "p99 ms",
      "added p50 ms",
      "added p99 ms",
      "added p50 ours/Portkey",
      "added p99 ours/Portkey",
    ],
    targets.map((t) => {
      const own = spread(times.get(t)!);
      const added = r.added.get(t.name)!;
      const ours = b.services.some((s) => s.target === t);
      return [
        t.name,
        times.get(t)!.length,
        ms(own.p50),
        ms(own.p99),
        t === b.direct ? "—" : ms(added.p50),
        t === b.direct ? "—" : ms(added.p99),
        ours ? ratio(added.p50, theirs.p50) : "—",
        ours ? ratio(added.p99, theirs.p99) : "—",
      ];
    }),
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
      ]);
    }
    const [first, last] = [buckets[0], buckets.at(-1)!];
    rows.push([
      s.store,
      `${last.from}–${last.to} / ${first.from}–${first.to}`,
      ratio(last.turn.p50, first.turn.p50),
      ratio(last.added.p50, first.added.p50),
      ratio(last.added.p99, first.added.p99),
    ]);
  }
  printTable(
    "2. History depth: one session driven turn by turn; each turn's added latency is its time minus the provider answering the very body the service sent it",
    [
      "store",
      "depth (turns before)",
      "turn p50 ms",
      "added p50 ms",
      "added p99 ms",
    ],
    rows,
  );
}

export async function throughputSection(b: Bench, r: Results): Promise<void> {
  await b.provider.setPace({ delayMs: 20 });
  const rows = [];
  for (const clients of b.options.throughputClients) {
    for (const t of [b.portkey, ...b.services.map((s) => s.target)]) {
      progress(`throughput: ${t.name}, ${clients} clients …`);
      const m = await throughput(t, clients, b.options.throughputSeconds);
      r.throughput.set(`${t.name}@${clients}`, m);
      const theirs = r.throughput.get(`${b.portkey.name}@${clients}`)!;
      const ours = t !== b.portkey;
      rows.push([
        t.name,
        clients,
        whole(m.perSecond),
        ms(m.cpuMsPerRequest),
        m.cores.toFixed(2),
        ms(m.p50),
        ms(m.p99),
        m.errors === 0 ? "0" : `${m.errors} (${m.firstError?.slice(0, 120)})`,
        ours ? ratio(m.perSecond, theirs.perSecond) : "—",
        ours ? ratio(m.cpuMsPerRequest, theirs.cpuMsPerRequest) : "—",
      ]);
    }
  }
  await b.provider.setPace({ delayMs: 0 });
  printTable(
    `3. Throughput: clients sending buffered requests back to back, provider answering in 20 ms, about ${b.options.throughputSeconds} s per row after a 2 s pilot (service: sessions of at most 10 turns). CPU: the target process's utime+stime from /proc`,
    [
      "target",
      "clients",
      "requests/s",
      "CPU ms/request",
      "cores used",
      "p50 ms",
      "p99 ms",
      "errors",
      "requests/s ours/Portkey",
      "CPU/request ours/Portkey",
    ],
    rows,
  );
}

export async function streamsSection(b: Bench, r: Results): Promise<void> {
  await b.provider.setPace(STREAM_PACE);
  const rows = [];
  for (const t of [b.portkey, ...b.services.map((s) => s.target)]) {
    for (const n of b.options.streamLevels) {
      progress(`streams: ${t.name}, ${n} at once …`);
      const level = await streams(t, n);
      r.streams.set(`${t.name}@${n}`, level);
      const theirs = r.streams.get(`${b.portkey.name}@${n}`)!;
      const ours = t !== b.portkey;
      rows.push([
        t.name,
        n,
        level.stallFree,
        level.failed === 0 ? "0" : `${level.failed} (${level.firstError?.slice(0, 120)})`,
        ms(level.addedGapP99),
        ms(level.firstDeltaP50),
        level.seconds.toFixed(1),
        ours ? ratio(level.stallFree, theirs.stallFree) : "—",
        ours ? ratio(level.addedGapP99, theirs.addedGapP99) : "—",
        ours ? ratio(level.firstDeltaP50, theirs.firstDeltaP50) : "—",
      ]);
      await new Promise((resolve) => setTimeout(resolve, 1000)); // let sockets close
    }
  }
  await b.provider.setPace({ delayMs: 0, chunks: 5, chunkGapMs: 0 });
  printTable(
    `4. Concurrent streams, all opened at once; the provider streams ${STREAM_PACE.chunks} deltas ${STREAM_PACE.chunkGapMs} ms apart. Stall-free: completed with no two frames over 1 s apart. Per-frame delay: delta-to-delta gap at the client minus the provider's ${STREAM_PACE.chunkGapMs} ms. First delta: from sending the request to the first text delta (Portkey holds every stream's first chunk about 25 ms on purpose)`,
    [
      "target",
      "streams",
      "stall-free",
      "failed",
      "added per-frame p99 ms",
      "first delta p50 ms",
      "wall s",
      "stall-free ours/Portkey",
      "per-frame p99 ours/Portkey",
      "first delta ours/Portkey",
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
