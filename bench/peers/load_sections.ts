/**
 * The sections that load the targets: throughput with CPU per request and
 * concurrent streams. Each prints its table once measured.
 */
import { type Bench, by, type Memory, progress, type Results } from "./context.ts";
import { type ClientName, loadClient } from "./load_client.ts";
import {
  SLICES,
  STREAM_PACE,
  STREAM_RAMP_MS,
  streams,
  throughputInTurns,
  TURNS_PER_SESSION,
} from "./load.ts";
import { failures, ms, printTable, ratio, whole } from "./report.ts";
import { HANDLER, phaseSpreads, PROVIDER_PHASES, scrapePhases } from "./phases.ts";
import { PHASES } from "../../src/telemetry/phase_clock.ts";
import { FLOOR_PAUSE_MS, turnFloor } from "./commit_floor.ts";
import type { Spread } from "../measure.ts";

/** The throughput level whose turn phases the phase table shows. */
const PHASE_CLIENTS = 32;

export async function throughputSection(b: Bench, r: Results): Promise<void> {
  await b.provider.setPace({ delayMs: 20 });
  const rows = [];
  const targets = [b.portkey, ...b.services.map((s) => s.target)];
  for (const clients of b.options.throughputClients) {
    // The load generators take turns at each level, so a level's rows share the machine's moment.
    for (const name of b.options.clients) {
      progress(
        `throughput (${name} client): ${targets.length} targets in turns, ${clients} clients …`,
      );
      const phased = clients === PHASE_CLIENTS ? b.services : [];
      const before = await Promise.all(phased.map((s) => scrapePhases(s.client.url)));
      const measured = await throughputInTurns(
        targets,
        clients,
        b.options.throughputSeconds,
        loadClient(name).loop,
      );
      for (const [i, service] of phased.entries()) {
        r.phases.set(
          by(name, `${service.target.name}@${clients}`),
          phaseSpreads(before[i], await scrapePhases(service.client.url)),
        );
      }
      const theirs = measured.get(b.portkey)!;
      for (const t of targets) {
        const m = measured.get(t)!;
        r.throughput.set(by(name, `${t.name}@${clients}`), m);
        const ours = t !== b.portkey;
        rows.push([
          t.name,
          name,
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
  }
  await b.provider.setPace({ delayMs: 0 });
  printTable(
    `3. Throughput: clients sending buffered requests back to back, provider answering in 20 ms, about ${b.options.throughputSeconds} s per row in ${SLICES} slices, the targets taking turns slice by slice, after a 2 s pilot each (service: each client moves to a fresh session every ${TURNS_PER_SESSION} turns); at each level the load generators take turns (${
      b.options.clients.map((c) => `${c}: ${loadClient(c).label}`).join("; ")
    }). CPU: the target process's utime+stime from /proc; database CPU: the PostgreSQL server's processes (\`postgres\`) over the same run; machine: busy time of all cores (target, database, load generator and fake provider together)`,
    [
      "target",
      "client",
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
        ms(level.frameDelayP50),
        ms(level.frameDelayP99),
        ms(level.addedGapP99),
        ms(level.firstDeltaP50),
        level.seconds.toFixed(1),
        ours ? ratio(level.stallFree, theirs.stallFree) : "—",
        ours ? ratio(level.frameDelayP99, theirs.frameDelayP99) : "—",
        ours ? ratio(level.firstDeltaP50, theirs.firstDeltaP50) : "—",
      ]);
      await new Promise((resolve) => setTimeout(resolve, 1000)); // let sockets close
    }
  }
  await b.provider.setPace({ delayMs: 0, chunks: 5, chunkGapMs: 0 });
  printTable(
    `4. Concurrent streams, opened evenly over ${STREAM_RAMP_MS} ms; the provider streams ${STREAM_PACE.chunks} deltas ${STREAM_PACE.chunkGapMs} ms apart. Stall-free: completed with no two frames over 1 s apart. Per-frame delay, on one clock: each delta's arrival at the client minus the time the provider wrote it (the provider stamps its send time into every delta), so a frame held back by a burst of starts counts, however steady the gaps. Gap delay: delta-to-delta gap at the client minus the provider's ${STREAM_PACE.chunkGapMs} ms (blind to a constant hold-up). First delta: from sending the request to the first text delta (Portkey holds every stream's first chunk about 25 ms on purpose). The fake provider read directly, with nothing between, is the floor: the delay that the load generator and the provider add on this machine by themselves`,
    [
      "target",
      "streams",
      "stall-free",
      "failed",
      "per-frame delay p50 ms",
      "per-frame delay p99 ms",
      "gap delay p99 ms",
      "first delta p50 ms",
      "wall s",
      "stall-free ours/Portkey",
      "per-frame delay p99 ours/Portkey",
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

/**
 * Table 8: where the service's turns spent their time, from its own phase
 * histogram, at concurrency 1 (the latency blocks) and at PHASE_CLIENTS
 * clients (the throughput run), beside the added latency and the machine's
 * synced-commit time.
 */
export function printPhases(b: Bench, r: Results): void {
  const client = b.options.clients[0];
  const rows: (string | number)[][] = [];
  for (const s of b.services) {
    const one = r.phases.get(by(client, `${s.target.name}@1`));
    const many = r.phases.get(by(client, `${s.target.name}@${PHASE_CLIENTS}`));
    if (one === undefined && many === undefined) continue;
    for (const phase of PHASES) {
      const a = one?.get(phase);
      const c = many?.get(phase);
      if (a === undefined && c === undefined) continue;
      rows.push([
        s.store,
        PROVIDER_PHASES.has(phase) ? `${phase} (provider)` : phase,
        ms(a?.p50),
        ms(a?.p99),
        ms(a?.mean),
        ms(c?.p50),
        ms(c?.p99),
        ms(c?.mean),
      ]);
    }
    const own = (m: typeof one, pick: "p50" | "mean") =>
      m === undefined ? undefined : [...m].filter(([p]) => !PROVIDER_PHASES.has(p) && p !== HANDLER)
        .reduce((sum, [, x]) => sum + x[pick], 0);
    const handler = (m: typeof one) => m?.get(HANDLER);
    const added = r.added.get(by(client, s.target.name));
    rows.push([
      s.store,
      "the whole request in the service's handler (switchyard_http_request_duration_seconds, execute)",
      ms(handler(one)?.p50),
      ms(handler(one)?.p99),
      ms(handler(one)?.mean),
      ms(handler(many)?.p50),
      ms(handler(many)?.p99),
      ms(handler(many)?.mean),
    ]);
    rows.push([
      s.store,
      "the service's phases together (sum)",
      ms(own(one, "p50")),
      "",
      ms(own(one, "mean")),
      ms(own(many, "p50")),
      "",
      ms(own(many, "mean")),
    ]);
    rows.push([
      s.store,
      "added latency at concurrency 1 (table 1); phases p50 sum / added p50",
      ms(added?.p50),
      ms(added?.p99),
      ratio(own(one, "p50"), added?.p50),
      "",
      "",
      "",
    ]);
    const floor = s.floor;
    const row = (what: string, x: Spread) =>
      rows.push([s.store, what, ms(x.p50), ms(x.p99), "", "", "", ""]);
    const settings = floor.settings ? ` (${floor.settings})` : "";
    row(`the machine's floor: ${floor.what}${settings}, back to back`, floor.commit);
    row(`the same, each after ${FLOOR_PAUSE_MS} ms idle`, floor.commitAfterPause);
    if (floor.roundTripAfterPause !== undefined) {
      row(
        `a round trip (SELECT 1), each after ${FLOOR_PAUSE_MS} ms idle`,
        floor.roundTripAfterPause,
      );
    }
    const claim = floor.roundTripAfterPause === undefined ? "" : "the claim's round trip and ";
    const turn = turnFloor(floor);
    rows.push([
      s.store,
      `the store's floor under a turn at concurrency 1: ${claim}the write's synced commit, after idle (p50s added); beside it, that floor / Portkey's added p50`,
      ms(turn),
      "",
      ratio(turn, r.added.get(by(client, b.portkey.name))?.p50),
      "",
      "",
      "",
    ]);
  }
  printTable(
    `8. Where a turn waits: the service's own phase histogram (switchyard_turn_phase_seconds, the phases of its Server-Timing header), scraped before and after the timed latency blocks (concurrency 1, buffered turns) and the ${PHASE_CLIENTS}-client throughput run, both driven by the ${client} load generator (provider answering in 20 ms); quantiles interpolated within the histogram's buckets. The provider's phases are what the direct baseline pays too`,
    [
      "store",
      "phase",
      "p50 ms, 1 client",
      "p99 ms, 1 client",
      "mean ms, 1 client",
      `p50 ms, ${PHASE_CLIENTS} clients`,
      `p99 ms, ${PHASE_CLIENTS} clients`,
      `mean ms, ${PHASE_CLIENTS} clients`,
    ],
    rows,
  );
}

/**
 * Table 9: what the phases account for, request by request, from each
 * answer's own Server-Timing header at concurrency 1 (the latency blocks).
 */
export function printCoverage(b: Bench, r: Results): void {
  const rows: (string | number)[][] = [];
  for (const s of b.services) {
    for (const client of b.options.clients) {
      const c = r.coverage.get(by(client, s.target.name));
      if (c === undefined) continue;
      // Every phase of the header in the order a turn meets them, the provider's left out.
      const each = PHASES.filter((p) => c.phases.has(p) && !PROVIDER_PHASES.has(p))
        .map((p) => `${p} ${ms(c.phases.get(p)!.p50)}`).join(", ");
      rows.push([
        s.store,
        client,
        c.requests,
        ms(c.addedP50),
        ms(c.ownP50),
        ratio(c.ownP50, c.addedP50),
        `${(c.medianRatio * 100).toFixed(0)} %`,
        `${(c.withCallRatio * 100).toFixed(0)} %`,
        ms(c.unexplainedP50),
        ms(c.providerP50),
        ms(c.outsideP50),
        ms(r.afterPause.get(client)),
        ms(c.directP50),
        each,
      ]);
    }
  }
  printTable(
    "9. What the phases account for at concurrency 1, request by request: each answer's own Server-Timing header (the service's phases, the provider's left out) beside the time the client saw. Added: the request's time minus the direct request's p50 (table 1). Unexplained: added − the service's phases, per request. The provider's phases hold the service's own outbound HTTP client beside the provider's work: what they take beyond the direct request (the same call from the load generator) is time the service adds inside a phase, counted in the column after the phases alone (per request: 1 − outside / added). Outside every phase: the request's time minus all its phases (the provider's included): before the handler starts and after the header is written (the runtime's HTTP layer both ways, the network, the client's reading), to be set beside the same transport after a pause (the fake provider holding its answer about as long as a turn takes, while the client waits idle: what waking both ends costs this machine) and the direct request's own whole time (the same transport, plus the provider's work)",
    [
      "store",
      "client",
      "requests",
      "added p50 ms",
      "phases p50 ms (sum per request)",
      "phases p50 / added p50",
      "median of per-request phases / added",
      "median of per-request (phases + provider phases − direct p50) / added",
      "unexplained p50 ms",
      "provider phases p50 ms",
      "outside every phase p50 ms",
      `the same after a pause: ${b.held.name}, its time − the provider's handler, p50 ms`,
      "direct request p50 ms",
      "each phase's p50 ms (the service's own)",
    ],
    rows,
  );
}

/**
 * Table 10: the same figures as each load generator measured them (tables 1
 * and 3), side by side: whether the client changes what the tables say.
 */
export function printClients(b: Bench, r: Results): void {
  const [a, c] = b.options.clients;
  if (c === undefined) return;
  const rows: (string | number)[][] = [];
  const pk = b.portkey.name;
  const both = (label: string, of: (client: ClientName) => number | undefined, fmt = ms) => {
    const x = of(a);
    const y = of(c);
    rows.push([label, fmt(x), fmt(y), ratio(x, y)]);
  };
  const added = (name: string, q: "p50" | "p99") => (client: ClientName) =>
    r.added.get(by(client, name))?.[q];
  const x = (
    v: number | undefined,
  ) => (v === undefined || Number.isNaN(v) ? "—" : `${v.toFixed(2)}×`);
  const first = b.services[0]?.target.name ?? "";
  both(
    "fake provider read directly: request p50 ms (the floor)",
    (client) => r.coverage.get(by(client, first))?.directP50,
  );
  both(`${pk}: added p50 ms`, added(pk, "p50"));
  for (const s of b.services) {
    const name = s.target.name;
    both(`${name}: added p50 ms`, added(name, "p50"));
    both(
      `${name}: added p50 ours/Portkey`,
      (client) => (added(name, "p50")(client) ?? NaN) / (added(pk, "p50")(client) ?? NaN),
      x,
    );
    both(
      `${name}: added p99 ours/Portkey`,
      (client) => (added(name, "p99")(client) ?? NaN) / (added(pk, "p99")(client) ?? NaN),
      x,
    );
    const cover = (client: ClientName) => r.coverage.get(by(client, name))?.medianRatio;
    both(
      `${name}: own phases / added, median per request`,
      cover,
      (v) => v === undefined ? "—" : `${(v * 100).toFixed(0)} %`,
    );
    for (const clients of b.options.throughputClients) {
      const rate = (target: string) => (client: ClientName) =>
        r.throughput.get(by(client, `${target}@${clients}`))?.perSecond;
      both(
        `${name}: turns/s at ${clients} clients ours/Portkey`,
        (client) => (rate(name)(client) ?? NaN) / (rate(pk)(client) ?? NaN),
        x,
      );
    }
  }
  for (const clients of b.options.throughputClients) {
    both(
      `${pk}: turns/s at ${clients} clients`,
      (client) => r.throughput.get(by(client, `${pk}@${clients}`))?.perSecond,
      whole,
    );
  }
  printTable(
    `10. The two load generators side by side (the figures of tables 1, 3 and 9 as each measured them, one after the other in this run)`,
    ["figure", a, c, `${a}/${c}`],
    rows.filter((row) => row[1] !== "—" || row[2] !== "—"),
  );
}
