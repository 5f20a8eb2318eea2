/**
 * Where a loaded service spends its CPU: starts the service under the V8
 * inspector, drives buffered turns at 32 clients (provider answering in
 * 20 ms) while the CPU profiler samples, and prints the top functions by
 * self time. `deno task bench:profile [pglite|postgres] [top] [turns|depth|preview|alloc|streams]`:
 * `preview` drives previews at 32 clients instead; `streams` opens N streamed
 * turns evenly over STREAM_RAMP_MS (a fourth argument, 512 by default) against a fake provider
 * process pacing its deltas as `bench:peers` does, after the same number read
 * from that provider directly (the floor), and prints both added per-frame p99; with
 * `depth`, one session's turns 150–199, one at a time, are profiled and set
 * beside 50 turns on fresh sessions, profiled just before them (what a deep
 * session adds to a turn, both measured warm); `alloc`
 * drives the turns of `turns` (or, with a fourth argument `preview`, previews)
 * under V8's sampling heap profiler instead and prints the functions that
 * allocate the most (what the collector then spends its time on), per request.
 */
import process from "node:process";
import { createScratchDatabase } from "../tests/support/databases.ts";
import { executeTurn, measureThroughput, startTurnService } from "./turn_http.ts";
import { closedLoop, forMs, STREAM_PACE, streams } from "./peers/load.ts";
import { directTarget, previewCall, serviceTarget } from "./peers/targets.ts";
import { startProviderProcess } from "./peers/provider_process.ts";
import { cpuMs, mainThreadCpuMs, threadCpuMs } from "./peers/proc.ts";
import { startServiceClient, type TurnService } from "./turn_http.ts";

const INSPECT_PORT = 9329;
const store = Deno.args[0] ?? "pglite";
const top = Number(Deno.args[1] ?? 25);
const mode = Deno.args[2] ?? "turns";
if (!["turns", "depth", "preview", "alloc", "streams"].includes(mode)) {
  throw new Error(`unknown mode ${mode}`);
}
const DEPTH = 150;
const DEEP_TURNS = 50;
const SAMPLE_US = 200;
/** A busy stretch of the main thread this long delays every frame that arrives during it. */
const LONG_STRETCH_MS = 10;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

/** The samples of the last profile, in order: the node hit, and the µs since the one before. */
let lastSamples: { samples: number[]; timeDeltas: number[] } = { samples: [], timeDeltas: [] };

/** A minimal Chrome DevTools Protocol session over the inspector's WebSocket. */
async function inspector(port: number) {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  const ws = new WebSocket(targets[0].webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  let next = 1;
  const waiting = new Map<number, (result: unknown) => void>();
  ws.onmessage = (e) => {
    const message = JSON.parse(e.data);
    waiting.get(message.id)?.(message.result);
    waiting.delete(message.id);
  };
  return {
    send(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
      const id = next++;
      ws.send(JSON.stringify({ id, method, params }));
      return new Promise((resolve) => waiting.set(id, resolve));
    },
    close: () => ws.close(),
  };
}

/** `name path:line`, the path from node_modules/, src/ or ext/ on; a builtin has no path. */
function frameName(f: ProfileNode["callFrame"]): string {
  const name = f.functionName || "(anonymous)";
  if (f.url === "") return name;
  return `${name} ${f.url.replace(/^.*\/(node_modules|src|ext)\//, "$1/")}:${f.lineNumber + 1}`;
}

function selfTimes(nodes: ProfileNode[]): { name: string; share: number }[] {
  const total = nodes.reduce((sum, n) => sum + (n.hitCount ?? 0), 0);
  const byName = new Map<string, number>();
  for (const n of nodes) {
    const name = frameName(n.callFrame);
    byName.set(name, (byName.get(name) ?? 0) + (n.hitCount ?? 0));
  }
  return [...byName].map(([name, hits]) => ({ name, share: hits / total }))
    .sort((a, b) => b.share - a.share);
}

/** Self time by area: the embedded database, the PostgreSQL driver, our code, the runtime. */
function areaTimes(nodes: ProfileNode[]): { name: string; share: number }[] {
  const total = nodes.reduce((sum, n) => sum + (n.hitCount ?? 0), 0);
  const areas = new Map<string, number>();
  for (const n of nodes) {
    const url = n.callFrame.url;
    const area = url.includes("@electric-sql/pglite") || url.startsWith("wasm://")
      ? "PGlite (JS and WASM)"
      : url.includes("/postgres/")
      ? "postgres.js"
      : url.includes("/arktype/") || url.includes("@ark")
      ? "arktype"
      : url.includes("/src/")
      ? `src/${url.split("/src/")[1].split("/")[0]}`
      : url.includes("node_modules")
      ? "other npm packages"
      : n.callFrame.functionName.startsWith("(")
      ? n.callFrame.functionName
      : "runtime (ext:, natives)";
    areas.set(area, (areas.get(area) ?? 0) + (n.hitCount ?? 0));
  }
  return [...areas].map(([name, hits]) => ({ name, share: hits / total }))
    .sort((a, b) => b.share - a.share);
}

const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const scratch = store === "postgres" ? await createScratchDatabase(adminUrl) : undefined;
// BENCH_PROFILER=none runs without the inspector: Deno's inspector copies every fetch body for
// its network view, which costs the streams mode more than the service's own work.
const noProfiler = process.env.BENCH_PROFILER === "none";
const inspect = noProfiler ? [] : [`--inspect=127.0.0.1:${INSPECT_PORT}`];
// Streams are paced by a provider process of its own, as in `bench:peers`, so its timers do not
// share a thread with the load generator's reads.
const streamProvider = mode === "streams" ? await startProviderProcess() : null;
// Only the other modes use the in-process provider that a TurnService carries.
const s = streamProvider === null
  ? await startTurnService(scratch?.url, inspect)
  : await startServiceClient(streamProvider.url, scratch?.url, inspect) as TurnService;
try {
  const cdp = noProfiler ? null : await inspector(INSPECT_PORT);
  await cdp?.send("Profiler.enable");
  await cdp?.send("Profiler.setSamplingInterval", { interval: SAMPLE_US });
  const profiled = async (fn: () => Promise<void>) => {
    if (cdp === null) {
      await fn();
      return [];
    }
    await cdp.send("Profiler.start");
    await fn();
    const { profile } = await cdp.send("Profiler.stop") as {
      profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
    };
    lastSamples = profile;
    // BENCH_PROFILE_OUT=file.cpuprofile keeps the whole profile, for Chrome DevTools.
    if (process.env.BENCH_PROFILE_OUT) {
      Deno.writeTextFileSync(process.env.BENCH_PROFILE_OUT, JSON.stringify(profile));
    }
    return profile.nodes;
  };
  if (mode === "depth") await printDepthProfiles(profiled);
  else if (mode === "streams") await printStreamsProfile(profiled);
  else if (mode === "alloc") await printAllocations(cdp!);
  else await printLoadProfile(profiled);
  cdp?.close();
} finally {
  await s.close();
  await streamProvider?.stop();
  await scratch?.drop();
}

type Profiled = (fn: () => Promise<void>) => Promise<ProfileNode[]>;

interface AllocationNode {
  callFrame: ProfileNode["callFrame"];
  selfSize: number;
  children: AllocationNode[];
}

/** Bytes allocated per turn by each function (its own allocations), largest first. */
async function printAllocations(cdp: Awaited<ReturnType<typeof inspector>>) {
  const TURNS = 1500;
  await cdp.send("HeapProfiler.enable");
  // Every 4 KB allocated on average; objects collected since are counted too.
  await cdp.send("HeapProfiler.startSampling", {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  let requests = TURNS;
  if (Deno.args[3] === "preview") {
    const loop = await closedLoop(32, forMs(8000), await previewCall(s));
    requests = loop.times.length;
  } else await measureThroughput(s, "profiled", { total: TURNS, clients: 32, delayMs: 20 });
  const { profile } = await cdp.send("HeapProfiler.stopSampling") as {
    profile: { head: AllocationNode };
  };
  const bySite = new Map<string, number>();
  // A builtin (`entries`, `map`…) is charged to the function that called it.
  const walk = (node: AllocationNode, caller: string) => {
    const own = frameName(node.callFrame);
    const name = node.callFrame.url === "" ? `${caller} › ${own}` : own;
    bySite.set(name, (bySite.get(name) ?? 0) + node.selfSize);
    for (const child of node.children) walk(child, node.callFrame.url === "" ? caller : name);
  };
  walk(profile.head, "(root)");
  const total = [...bySite.values()].reduce((a, b) => a + b, 0);
  const what = Deno.args[3] === "preview" ? "preview" : "turn";
  console.log(
    `\n${store}: ${(total / requests / 1024).toFixed(1)} KB allocated per ${what} (sampled)\n`,
  );
  console.log(`| KB per ${what} | share % | function |\n|---:|---:|---|`);
  for (const [name, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(
      `| ${(bytes / requests / 1024).toFixed(2)} | ${
        (bytes / total * 100).toFixed(1)
      } | \`${name}\` |`,
    );
  }
}

/** N streams opened over the ramp, warmed by a first round, profiled; the provider read directly beside them. */
async function printStreamsProfile(profiled: Profiled) {
  const n = Number(Deno.args[3] ?? 512);
  const provider = streamProvider!;
  await provider.setPace({ delayMs: 0, chunks: 5, chunkGapMs: 0 });
  await executeTurn(s, await s.newSession());
  const body = await provider.lastBody();
  // BENCH_STREAM_CHUNKS=2 leaves little but each stream's start and end in the profile.
  await provider.setPace({
    ...STREAM_PACE,
    chunks: Number(process.env.BENCH_STREAM_CHUNKS ?? STREAM_PACE.chunks),
  });
  const service = serviceTarget(`service, ${store}`, s);
  const floor = await streams(directTarget(provider.pid, provider.url, body), n);
  await streams(service, Math.min(n, 128)); // warm-up
  let level!: Awaited<ReturnType<typeof streams>>;
  const cpuBefore = cpuMs(s.pid);
  const mainBefore = mainThreadCpuMs(s.pid);
  const threadsBefore = threadCpuMs(s.pid);
  const nodes = await profiled(async () => {
    level = await streams(service, n);
  });
  const cpu = cpuMs(s.pid) - cpuBefore;
  const main = mainThreadCpuMs(s.pid) - mainBefore;
  const threads = [...threadCpuMs(s.pid)]
    .map(([name, ms]) => [name, (ms - (threadsBefore.get(name) ?? 0)) / n] as const)
    .filter(([, ms]) => ms >= 0.05).sort((a, b) => b[1] - a[1]);
  console.log(
    `\n${store}: ${n} streams, ${level.stallFree} stall-free, ${level.failed} failed; added per-frame p99 ${
      level.addedGapP99.toFixed(1)
    } ms (provider read directly: ${floor.addedGapP99.toFixed(1)} ms); first delta p50 ${
      level.firstDeltaP50.toFixed(1)
    } ms; service CPU ${(cpu / n).toFixed(2)} ms per stream (all threads), ${
      (main / n).toFixed(2)
    } ms on the main thread\n`,
  );
  console.log(
    `CPU ms per stream by thread: ${
      threads.map(([t, ms]) => `${t} ${ms.toFixed(2)}`).join(", ")
    }\n`,
  );
  if (nodes.length === 0) return;
  console.log("| self % | area |\n|---:|---|");
  for (const a of areaTimes(nodes)) console.log(`| ${(a.share * 100).toFixed(1)} | ${a.name} |`);
  // The profile's whole span (the sum of its sample gaps), shared out by each function's samples.
  const spanMs = lastSamples.timeDeltas.reduce((a, b) => a + b, 0) / 1000;
  const msPerStream = (share: number) => (share * spanMs / n).toFixed(3);
  const busy = selfTimes(nodes).filter((f) => f.name !== "(idle)");
  console.log(
    `\nmain thread busy ${msPerStream(busy.reduce((a, f) => a + f.share, 0))} ms per stream\n`,
  );
  console.log("| self % | self ms per stream | function |\n|---:|---:|---|");
  for (const f of busy.slice(0, top)) {
    console.log(`| ${(f.share * 100).toFixed(1)} | ${msPerStream(f.share)} | \`${f.name}\` |`);
  }
  printBusyStretches(nodes);
}

/**
 * The main thread's busy stretches (samples in a row that are not idle): how
 * long they last, and in the long ones, the innermost frame of ours on the
 * stack (or the collector, or the runtime with no frame of ours).
 */
function printBusyStretches(nodes: ProfileNode[]) {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const ours = (id: number): string => {
    const n = byId.get(id)!;
    if (n.callFrame.functionName.startsWith("(")) return n.callFrame.functionName;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const f = byId.get(at)!.callFrame;
      if (f.url.includes("/src/")) return frameName(f);
    }
    return "runtime, no frame of ours";
  };
  const stretches: { ms: number; ids: number[] }[] = [];
  let current: { ms: number; ids: number[] } | null = null;
  lastSamples.samples.forEach((id, i) => {
    const idle = byId.get(id)!.callFrame.functionName === "(idle)";
    if (idle) current = null;
    else {
      if (current === null) stretches.push(current = { ms: 0, ids: [] });
      current.ms += (lastSamples.timeDeltas[i + 1] ?? 0) / 1000;
      current.ids.push(id);
    }
  });
  const lengths = stretches.map((x) => x.ms).sort((a, b) => a - b);
  const busy = lengths.reduce((a, b) => a + b, 0);
  const long = stretches.filter((x) => x.ms >= LONG_STRETCH_MS);
  const inLong = long.reduce((a, x) => a + x.ms, 0);
  console.log(
    `\nBusy stretches of the main thread: ${stretches.length}, ${busy.toFixed(0)} ms in all, p50 ${
      (lengths[Math.floor(lengths.length / 2)] ?? 0).toFixed(2)
    } ms, p99 ${(lengths[Math.floor(lengths.length * 0.99)] ?? 0).toFixed(1)} ms, longest ${
      (lengths.at(-1) ?? 0).toFixed(1)
    } ms; ${long.length} of ${LONG_STRETCH_MS} ms or more hold ${inLong.toFixed(0)} ms\n`,
  );
  const within = new Map<string, number>();
  for (const x of long) {
    for (const id of x.ids) within.set(ours(id), (within.get(ours(id)) ?? 0) + 1);
  }
  const samples = [...within.values()].reduce((a, b) => a + b, 0);
  console.log(`| share % of the long stretches | innermost frame of ours |\n|---:|---|`);
  for (const [name, hits] of [...within].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`| ${(hits / samples * 100).toFixed(1)} | \`${name}\` |`);
  }
}

async function printLoadProfile(profiled: Profiled) {
  let perSecond = 0;
  const nodes = await profiled(async () => {
    if (mode === "turns") {
      const row = await measureThroughput(s, "profiled", { total: 1500, clients: 32, delayMs: 20 });
      perSecond = row.perSecond;
    } else {
      const call = await previewCall(s);
      const loop = await closedLoop(32, forMs(8000), call);
      perSecond = loop.times.length / (loop.wallMs / 1000);
    }
  });
  console.log(`\n${store}: ${perSecond.toFixed(0)} ${mode}/s under the profiler\n`);
  console.log("| self % | area |\n|---:|---|");
  for (const a of areaTimes(nodes)) console.log(`| ${(a.share * 100).toFixed(1)} | ${a.name} |`);
  console.log("\n| self % | function |\n|---:|---|");
  for (const f of selfTimes(nodes).slice(0, top)) {
    console.log(`| ${(f.share * 100).toFixed(1)} | \`${f.name}\` |`);
  }
}

/** Self time per turn of each function, in one session's turns 0–49 and 150–199, by growth. */
async function printDepthProfiles(profiled: Profiled) {
  const session = await s.newSession();
  // Fresh sessions are made outside the profile; their turns run when the deep ones do, warm alike.
  const fresh = await Promise.all(Array.from({ length: DEEP_TURNS }, () => s.newSession()));
  const turns = (n: number) => async () => {
    for (let i = 0; i < n; i++) await executeTurn(s, session);
  };
  const msPerTurn = (nodes: ProfileNode[]) => {
    const total = nodes.reduce((sum, n) => sum + (n.hitCount ?? 0), 0);
    return new Map(
      selfTimes(nodes).map((f) => [f.name, (f.share * total * SAMPLE_US) / 1000 / DEEP_TURNS]),
    );
  };
  await turns(DEPTH)();
  const shallow = msPerTurn(
    await profiled(async () => {
      for (const id of fresh) await executeTurn(s, id);
    }),
  );
  const deepest = msPerTurn(await profiled(turns(DEEP_TURNS)));
  const rows = [...new Set([...shallow.keys(), ...deepest.keys()])]
    .filter((name) => name !== "(idle)")
    .map((name) => ({ name, at0: shallow.get(name) ?? 0, atDepth: deepest.get(name) ?? 0 }))
    .sort((a, b) => (b.atDepth - b.at0) - (a.atDepth - a.at0));
  const sum = (pick: (r: typeof rows[number]) => number) => rows.reduce((t, r) => t + pick(r), 0);
  console.log(
    `\n${store}: CPU ms per turn (self time, not idle), ${DEEP_TURNS} turns on fresh sessions and turns ${DEPTH}–${
      DEPTH + DEEP_TURNS - 1
    } of one session, profiled one after the other\n`,
  );
  console.log(
    `| function | fresh | ${DEPTH}–${DEPTH + DEEP_TURNS - 1} | growth |\n|---|---:|---:|---:|`,
  );
  const line = (name: string, a: number, b: number) =>
    console.log(`| ${name} | ${a.toFixed(3)} | ${b.toFixed(3)} | ${(b - a).toFixed(3)} |`);
  line("**all**", sum((r) => r.at0), sum((r) => r.atDepth));
  for (const r of rows.slice(0, top)) line(`\`${r.name}\``, r.at0, r.atDepth);
}
