/**
 * The targets under load: many clients sending buffered requests back to back
 * (throughput, with the target process's CPU time per request), and many
 * streamed answers held at once.
 */
import { percentile, spread } from "../measure.ts";
import { commandCpuMs, cpuMs, machineBusyMs } from "./proc.ts";
import type { Target } from "./targets.ts";

/** Turns a service session takes before its client moves on to a fresh one: a working session's depth. */
export const TURNS_PER_SESSION = 50;
/** The first run at each level only estimates the rate, so the measured run lasts about as asked. */
const PILOT_MS = 2000;

export interface Loop {
  /** Times (ms) of the calls that succeeded. */
  times: number[];
  /** Messages of the calls that failed. */
  errors: string[];
  wallMs: number;
}

/**
 * `clients` loops each calling `call(client, n)` (n counting that client's
 * calls from 0) back to back while `more()` says so. A failed call is counted,
 * never a data point.
 */
export async function closedLoop(
  clients: number,
  more: () => boolean,
  call: (client: number, n: number) => Promise<unknown>,
): Promise<Loop> {
  const times: number[] = [];
  const errors: string[] = [];
  const start = performance.now();
  await Promise.all(Array.from({ length: clients }, async (_, client) => {
    for (let n = 0; more(); n++) {
      const t = performance.now();
      try {
        await call(client, n);
        times.push(performance.now() - t);
      } catch (error) {
        errors.push(String(error));
      }
    }
  }));
  return { times, errors, wallMs: performance.now() - start };
}

/** Keeps going for `ms` from the first call. */
export function forMs(ms: number): () => boolean {
  let end: number | undefined;
  return () => performance.now() < (end ??= performance.now() + ms);
}

export interface Throughput {
  requests: number;
  perSecond: number;
  cpuMsPerRequest: number;
  /** The target's CPU time over the wall time: cores in use. */
  cores: number;
  /** CPU time of the PostgreSQL server's processes per request (on this machine, whoever used them). */
  databaseCpuMsPerRequest: number;
  /** Busy time of the whole machine over the wall time: of its cores, how many were in use. */
  machineCores: number;
  p50: number;
  p99: number;
  /** Requests that failed (not counted above), with the first failure's message. */
  errors: number;
  firstError?: string;
}

/**
 * A closed loop of buffered requests, as a load generator runs it: `clients`
 * clients, client c's n-th request (n counting from `firstCall`) on its
 * conversation floor(n / perSession) (cycling through its list), for `ms` from
 * the first call or until `count` requests started; with `pid`, the CPU of
 * that process, of the PostgreSQL server and of the whole machine over the
 * loop.
 */
export interface LoopJob {
  clients: number;
  conversations: string[][];
  perSession: number;
  /** Where each client's n starts (a slice going on from the last); 0 by default. */
  firstCall?: number;
  ms?: number;
  count?: number;
  pid?: number;
}

export interface LoopResult {
  times: number[];
  errors: number;
  firstError?: string;
  wallMs: number;
  cpu: number;
  database: number;
  machine: number;
}

/** The loop in this process (the Deno load generator). */
export async function localLoop(target: Target, job: LoopJob): Promise<LoopResult> {
  let started = 0;
  const more = job.ms !== undefined ? forMs(job.ms) : () => started++ < job.count!;
  const pid = job.pid;
  const cpuBefore = pid === undefined ? 0 : cpuMs(pid);
  const databaseBefore = pid === undefined ? 0 : commandCpuMs("postgres");
  const machineBefore = pid === undefined ? 0 : machineBusyMs();
  const first = job.firstCall ?? 0;
  const loop = await closedLoop(job.clients, more, (c, n) => {
    const list = job.conversations[c];
    return target.buffered(list[Math.floor((first + n) / job.perSession) % list.length]);
  });
  return {
    times: loop.times,
    errors: loop.errors.length,
    firstError: loop.errors[0],
    wallMs: loop.wallMs,
    cpu: pid === undefined ? 0 : cpuMs(pid) - cpuBefore,
    database: pid === undefined ? 0 : commandCpuMs("postgres") - databaseBefore,
    machine: pid === undefined ? 0 : machineBusyMs() - machineBefore,
  };
}

export type RunLoop = (target: Target, job: LoopJob) => Promise<LoopResult>;

/**
 * Each target's throughput is measured in this many slices, the targets taking
 * turns slice by slice, so a slow moment of this shared machine falls on every
 * target alike rather than on whichever row it meets.
 */
export const SLICES = 3;

/**
 * Buffered requests from `clients` clients back to back for about `seconds`
 * per target: a pilot run estimates each target's rate, then the targets take
 * turns, SLICES times, each running its share of a fixed number of requests on
 * conversations made beforehand (for the service, each client moves to a
 * fresh session every TURNS_PER_SESSION turns, and a slice goes on where the
 * last left off, so sessions are as deep as working ones). `run` is the load
 * generator's loop.
 */
export async function throughputInTurns(
  targets: readonly Target[],
  clients: number,
  seconds: number,
  run: RunLoop = localLoop,
): Promise<Map<Target, Throughput>> {
  const plans = new Map<Target, { perSlice: number; conversations: string[][] }>();
  for (const target of targets) {
    const pilotConversations = await target.conversations(clients);
    const pilot = await run(target, {
      clients,
      conversations: pilotConversations.map((c) => [c]),
      perSession: TURNS_PER_SESSION,
      ms: PILOT_MS,
    });
    const total = Math.max(
      clients * 4,
      Math.round(pilot.times.length / PILOT_MS * 1000 * seconds),
    );
    const perClient = Math.ceil(Math.ceil(total / clients) * 1.5 / TURNS_PER_SESSION);
    const all = await target.conversations(clients * perClient);
    plans.set(target, {
      perSlice: Math.ceil(total / SLICES),
      conversations: Array.from(
        { length: clients },
        (_, c) => all.slice(c * perClient, (c + 1) * perClient),
      ),
    });
  }
  const loops = new Map<Target, LoopResult[]>(targets.map((t) => [t, []]));
  for (let slice = 0; slice < SLICES; slice++) {
    for (const target of targets) {
      const plan = plans.get(target)!;
      loops.get(target)!.push(
        await run(target, {
          clients,
          conversations: plan.conversations,
          perSession: TURNS_PER_SESSION,
          count: plan.perSlice,
          firstCall: slice * Math.ceil(plan.perSlice / clients),
          pid: target.pid,
        }),
      );
    }
  }
  return new Map(targets.map((t) => [t, throughputOf(loops.get(t)!)]));
}

/** The slices of one target's run as one. */
function throughputOf(slices: readonly LoopResult[]): Throughput {
  const sum = (of: (l: LoopResult) => number) => slices.reduce((n, l) => n + of(l), 0);
  const times = slices.flatMap((l) => l.times);
  const wallMs = sum((l) => l.wallMs);
  const cpu = sum((l) => l.cpu);
  return {
    requests: times.length,
    perSecond: times.length / (wallMs / 1000),
    cpuMsPerRequest: cpu / times.length,
    cores: cpu / wallMs,
    databaseCpuMsPerRequest: sum((l) => l.database) / times.length,
    machineCores: sum((l) => l.machine) / wallMs,
    ...spread(times),
    errors: sum((l) => l.errors),
    firstError: slices.find((l) => l.firstError !== undefined)?.firstError,
  };
}

/** The provider's pace while streams run: CHUNKS deltas GAP_MS apart (10 s of deltas). */
export const STREAM_PACE = { delayMs: 0, chunks: 100, chunkGapMs: 100 };
/**
 * Streams are opened evenly over this long, so most frames of running streams
 * arrive while others start: a start that holds the main thread shows in the
 * per-frame delay of the streams already running.
 */
export const STREAM_RAMP_MS = 1024;
/** A stream stalls when two of its frames arrive further apart than this. */
export const STALL_MS = 1000;

export interface StreamLevel {
  streams: number;
  /** Streams that completed with no gap between frames over STALL_MS. */
  stallFree: number;
  failed: number;
  firstError?: string;
  /** Delta-to-delta arrival gap minus the provider's gap, p99 over all streams. */
  addedGapP99: number;
  /** Each delta's arrival minus its send time on one clock, over all streams: p50 and p99. */
  frameDelayP50: number;
  frameDelayP99: number;
  /** From sending the request to the first text delta, p50. */
  firstDeltaP50: number;
  seconds: number;
}

export async function streams(
  target: Target,
  n: number,
  rampMs = STREAM_RAMP_MS,
): Promise<StreamLevel> {
  const conversations = await target.conversations(n);
  const start = performance.now();
  const outcomes = await Promise.allSettled(
    conversations.map(async (c, i) => {
      const at = start + i * rampMs / n;
      const wait = at - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      return target.streamed(c);
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  const firsts: number[] = [];
  const added: number[] = [];
  const delays: number[] = [];
  let stallFree = 0;
  let failed = 0;
  let firstError: string | undefined;
  for (const o of outcomes) {
    if (o.status === "rejected") {
      failed++;
      firstError ??= String(o.reason);
      continue;
    }
    const { frames, deltas } = o.value;
    for (const d of o.value.delays) delays.push(d);
    if (frames.every((at, i) => i === 0 || at - frames[i - 1] <= STALL_MS)) {
      stallFree++;
    }
    if (deltas.length > 0) firsts.push(deltas[0]);
    for (let i = 1; i < deltas.length; i++) {
      added.push(deltas[i] - deltas[i - 1] - STREAM_PACE.chunkGapMs);
    }
  }
  const p = (values: number[], q: number) =>
    values.length ? percentile(values.sort((a, b) => a - b), q) : NaN;
  return {
    streams: n,
    stallFree,
    failed,
    firstError,
    addedGapP99: p(added, 99),
    frameDelayP50: p(delays, 50),
    frameDelayP99: p(delays, 99),
    firstDeltaP50: p(firsts, 50),
    seconds,
  };
}
