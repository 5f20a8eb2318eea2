/**
 * The sections that load the targets: throughput with CPU per request and
 * concurrent streams. Each prints its table once measured.
 */
import { type Bench, type Memory, progress, type Results } from "./context.ts";
import { STREAM_PACE, STREAM_RAMP_MS, streams, throughput } from "./load.ts";
import { failures, ms, printTable, ratio, whole } from "./report.ts";

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
        ms(m.databaseCpuMsPerRequest),
        `${m.machineCores.toFixed(2)} of ${navigator.hardwareConcurrency}`,
        ms(m.p50),
        ms(m.p99),
        failures(m.errors, m.firstError),
        ours ? ratio(m.perSecond, theirs.perSecond) : "—",
        ours ? ratio(m.cpuMsPerRequest, theirs.cpuMsPerRequest) : "—",
      ]);
    }
  }
  await b.provider.setPace({ delayMs: 0 });
  printTable(
    `3. Throughput: clients sending buffered requests back to back, provider answering in 20 ms, about ${b.options.throughputSeconds} s per row after a 2 s pilot (service: sessions of at most 10 turns). CPU: the target process's utime+stime from /proc; database CPU: the PostgreSQL server's processes (\`postgres\`) over the same run; machine: busy time of all cores (target, database, load generator and fake provider together)`,
    [
      "target",
      "clients",
      "requests/s",
      "CPU ms/request",
      "cores used",
      "database CPU ms/request",
      "machine cores busy",
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
  // The provider read directly comes first: the floor of what this machine can measure.
  for (const t of [b.direct, b.portkey, ...b.services.map((s) => s.target)]) {
    for (const n of b.options.streamLevels) {
      progress(`streams: ${t.name}, ${n} over ${STREAM_RAMP_MS} ms …`);
      const level = await streams(t, n);
      r.streams.set(`${t.name}@${n}`, level);
      const theirs = r.streams.get(`${b.portkey.name}@${n}`)!;
      const ours = t !== b.portkey && t !== b.direct;
      rows.push([
        t.name,
        n,
        level.stallFree,
        failures(level.failed, level.firstError),
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
    `4. Concurrent streams, opened evenly over ${STREAM_RAMP_MS} ms; the provider streams ${STREAM_PACE.chunks} deltas ${STREAM_PACE.chunkGapMs} ms apart. Stall-free: completed with no two frames over 1 s apart. Per-frame delay: delta-to-delta gap at the client minus the provider's ${STREAM_PACE.chunkGapMs} ms. First delta: from sending the request to the first text delta (Portkey holds every stream's first chunk about 25 ms on purpose). The fake provider read directly, with nothing between, is the floor: the delay that the load generator and the provider add on this machine by themselves`,
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

/** Table 6: each target process's resident memory, idle and at its peak under load. */
export function printMemory(b: Bench, memory: Memory, settleMs: number): void {
  const pkName = b.portkey.name;
  const names = [pkName, ...b.services.map((s) => s.target.name)];
  printTable(
    `6. Resident memory (VmRSS) of each target process: idle after start, sign-in and ${
      settleMs / 1000
    } s; loaded: the peak sampled every 100 ms through the throughput and stream runs`,
    ["process", "idle MB", "loaded peak MB", "idle ours/Portkey", "loaded ours/Portkey"],
    names.map((n) => [
      n,
      whole(memory.idle.get(n)),
      whole(memory.loaded.get(n)),
      n === pkName ? "—" : ratio(memory.idle.get(n), memory.idle.get(pkName)),
      n === pkName ? "—" : ratio(memory.loaded.get(n), memory.loaded.get(pkName)),
    ]),
  );
}
