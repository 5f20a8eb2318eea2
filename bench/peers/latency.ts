/**
 * Added latency at concurrency 1: the targets take turns in blocks (each
 * block a fixed number of requests per target, the order rotating block by
 * block) so drift of the shared machine hits all of them alike, each block's
 * requests on one conversation (for the service a session taking them as
 * turns, as deep as a working one); and the service's cost as one session's
 * history grows.
 */
import { type Spread, spread } from "../measure.ts";
import { commandCpuMs, cpuMs } from "./proc.ts";
import type { ProviderProcess } from "./provider_process.ts";
import { directTarget, type Target } from "./targets.ts";

export interface Blocks {
  blocks: number;
  perBlock: number;
  warmUp: number;
}

/** One target's requests at concurrency 1. */
export interface Sequential {
  /** Each request's time (ms). */
  times: number[];
  /** Each request's `Server-Timing` header (null: none), in the order of `times`. */
  timings: (string | null)[];
  /** The target process's CPU time per request (ms), counted over its own blocks only. */
  cpuMsPerRequest: number;
  /** The PostgreSQL server's CPU time per request over the same blocks (whoever used it). */
  databaseCpuMsPerRequest: number;
}

/** Each target's requests, a block's on one conversation. */
export async function interleavedLatency(
  targets: Target[],
  o: Blocks,
  /** Called once every target is warm, before the first timed block. */
  warm: () => Promise<void> = () => Promise.resolve(),
): Promise<Map<Target, Sequential>> {
  const runs = new Map(
    targets.map((t) => [t, {
      times: [] as number[],
      timings: [] as (string | null)[],
      cpu: 0,
      database: 0,
    }]),
  );
  for (const t of targets) {
    for (let n = 0; n < o.warmUp; n += o.perBlock) {
      const [c] = await t.conversations(1);
      for (let k = n; k < Math.min(o.warmUp, n + o.perBlock); k++) await t.buffered(c);
    }
  }
  await warm();
  for (let b = 0; b < o.blocks; b++) {
    for (let k = 0; k < targets.length; k++) {
      const target = targets[(b + k) % targets.length];
      const run = runs.get(target)!;
      const [conversation] = await target.conversations(1); // made outside the timing
      const cpuBefore = cpuMs(target.pid);
      const databaseBefore = commandCpuMs("postgres");
      for (let k = 0; k < o.perBlock; k++) {
        const start = performance.now();
        const timing = await target.buffered(conversation);
        run.times.push(performance.now() - start);
        run.timings.push(timing);
      }
      run.cpu += cpuMs(target.pid) - cpuBefore;
      run.database += commandCpuMs("postgres") - databaseBefore;
    }
  }
  return new Map(
    [...runs].map(([t, run]) => [t, {
      times: run.times,
      timings: run.timings,
      cpuMsPerRequest: run.cpu / run.times.length,
      databaseCpuMsPerRequest: run.database / run.times.length,
    }]),
  );
}

export const DEPTH_BUCKETS: [number, number][] = [
  [0, 9],
  [10, 49],
  [50, 99],
  [100, 149],
  [150, 199],
];

export interface DepthBucket {
  from: number;
  to: number;
  turn: Spread;
  added: Spread;
  /** Turns on fresh sessions (depth 0), each sent right after one of this bucket's turns. */
  fresh: Spread;
  /** Their added latency, measured as `added` is. */
  freshAdded: Spread;
}

/**
 * One session driven turn by turn to the last bucket's depth. Each turn's
 * added latency is its time minus sending the provider the very body the
 * service sent it (which grows with the history); each is paired with a turn
 * on a fresh session, so a bucket can be set against depth 0 at the same
 * moment, whatever the machine's drift between the first and last bucket.
 */
export async function depthBreakdown(
  target: Target,
  provider: ProviderProcess,
): Promise<DepthBucket[]> {
  const last = DEPTH_BUCKETS.at(-1)![1];
  const [session, ...freshSessions] = await target.conversations(last + 2);
  const timed = async (fn: () => Promise<unknown>) => {
    const start = performance.now();
    await fn();
    return performance.now() - start;
  };
  const turns: number[] = [];
  const added: number[] = [];
  const fresh: number[] = [];
  const freshAdded: number[] = [];
  // A turn's time, and that minus the provider answering the very body the service sent it.
  const measured = async (conversation: string) => {
    const turn = await timed(() => target.buffered(conversation));
    const direct = directTarget(provider.pid, provider.url, await provider.lastBody());
    return [turn, turn - await timed(() => direct.buffered(""))];
  };
  for (let depth = 0; depth <= last; depth++) {
    // Which of the pair goes first alternates: the second of two back-to-back turns tends
    // to be a few percent faster, which would otherwise read as depth.
    const deepFirst = depth % 2 === 0;
    const a = await measured(deepFirst ? session : freshSessions[depth]);
    const b = await measured(deepFirst ? freshSessions[depth] : session);
    const [[turn, turnAdded], [freshTurn, freshTurnAdded]] = deepFirst ? [a, b] : [b, a];
    turns.push(turn);
    added.push(turnAdded);
    fresh.push(freshTurn);
    freshAdded.push(freshTurnAdded);
  }
  const bucket = (times: number[], from: number, to: number) => spread(times.slice(from, to + 1));
  return DEPTH_BUCKETS.map(([from, to]) => ({
    from,
    to,
    turn: bucket(turns, from, to),
    added: bucket(added, from, to),
    fresh: bucket(fresh, from, to),
    freshAdded: bucket(freshAdded, from, to),
  }));
}
