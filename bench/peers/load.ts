/**
 * The targets under load: many clients sending buffered requests back to back
 * (throughput, with the target process's CPU time per request), and many
 * streamed answers held at once.
 */
import { percentile, spread } from "../measure.ts";
import { cpuMs } from "./proc.ts";
import type { Target } from "./targets.ts";

/** Turns one service session takes before a client moves on to a fresh one, so depth stays 0–9. */
const TURNS_PER_SESSION = 10;

export interface Throughput {
  requests: number;
  perSecond: number;
  cpuMsPerRequest: number;
  /** The target's CPU time over the wall time: cores in use. */
  cores: number;
  p50: number;
  p99: number;
  /** Requests that failed (not counted above), with the first failure's message. */
  errors: number;
  firstError?: string;
}

export async function throughput(
  target: Target,
  clients: number,
  total: number,
): Promise<Throughput> {
  const perClient = Math.ceil(Math.ceil(total / clients) * 1.5 / TURNS_PER_SESSION) + 1;
  const all = await target.conversations(clients * perClient);
  const own = Array.from(
    { length: clients },
    (_, c) => all.slice(c * perClient, (c + 1) * perClient),
  );
  await Promise.all(own.map((list) => target.buffered(list[0]))); // warm up
  const times: number[] = [];
  const errors: string[] = [];
  let started = 0;
  const cpuBefore = cpuMs(target.pid);
  const start = performance.now();
  await Promise.all(own.map(async (list) => {
    for (let turn = 1; started < total; turn++) {
      started++;
      const conversation = list[Math.floor(turn / TURNS_PER_SESSION) % list.length];
      const t = performance.now();
      try {
        await target.buffered(conversation);
        times.push(performance.now() - t);
      } catch (error) {
        errors.push(String(error));
      }
    }
  }));
  const wall = performance.now() - start;
  const cpu = cpuMs(target.pid) - cpuBefore;
  return {
    requests: times.length,
    perSecond: times.length / (wall / 1000),
    cpuMsPerRequest: cpu / times.length,
    cores: cpu / wall,
    ...spread(times),
    errors: errors.length,
    firstError: errors[0],
  };
}

/** The provider's pace while streams run: CHUNKS deltas GAP_MS apart. */
export const STREAM_PACE = { delayMs: 0, chunks: 20, chunkGapMs: 100 };
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
  /** From sending the request to the first text delta, p50. */
  firstDeltaP50: number;
  seconds: number;
}

export async function streams(target: Target, n: number): Promise<StreamLevel> {
  const conversations = await target.conversations(n);
  const start = performance.now();
  const outcomes = await Promise.allSettled(
    conversations.map((c) => target.streamed(c)),
  );
  const seconds = (performance.now() - start) / 1000;
  const firsts: number[] = [];
  const added: number[] = [];
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
    firstDeltaP50: p(firsts, 50),
    seconds,
  };
}
