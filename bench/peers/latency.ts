/**
 * Added latency at concurrency 1: the targets take turns in blocks (each
 * block a fixed number of requests per target, the order rotating block by
 * block) so drift of the shared machine hits all of them alike; and the
 * service's cost as one session's history grows.
 */
import { spread } from "../measure.ts";
import type { ProviderProcess } from "./provider_process.ts";
import { directTarget, type Target } from "./targets.ts";

export interface Blocks {
  blocks: number;
  perBlock: number;
  warmUp: number;
}

/** Each target's request times (ms), every request on a conversation of its own. */
export async function interleavedLatency(
  targets: Target[],
  o: Blocks,
): Promise<Map<Target, number[]>> {
  const times = new Map(targets.map((t) => [t, [] as number[]]));
  for (const t of targets) {
    for (const c of await t.conversations(o.warmUp)) await t.buffered(c);
  }
  for (let b = 0; b < o.blocks; b++) {
    for (let k = 0; k < targets.length; k++) {
      const target = targets[(b + k) % targets.length];
      const conversations = await target.conversations(o.perBlock); // made outside the timing
      for (const c of conversations) {
        const start = performance.now();
        await target.buffered(c);
        times.get(target)!.push(performance.now() - start);
      }
    }
  }
  return times;
}

export const DEPTH_BUCKETS: [number, number][] = [[0, 9], [10, 49], [50, 99], [
  100,
  149,
], [
  150,
  199,
]];

export interface DepthBucket {
  from: number;
  to: number;
  turn: { p50: number; p99: number };
  added: { p50: number; p99: number };
}

/**
 * One session driven turn by turn to the last bucket's depth; each turn's
 * added latency is its time minus sending the provider the very body the
 * service sent it for that turn (which grows with the history).
 */
export async function depthBreakdown(
  target: Target,
  provider: ProviderProcess,
): Promise<DepthBucket[]> {
  const [session] = await target.conversations(1);
  const turns: number[] = [];
  const added: number[] = [];
  const last = DEPTH_BUCKETS.at(-1)![1];
  for (let depth = 0; depth <= last; depth++) {
    const start = performance.now();
    await target.buffered(session);
    const turn = performance.now() - start;
    const direct = directTarget(
      provider.pid,
      provider.url,
      await provider.lastBody(),
    );
    const directStart = performance.now();
    await direct.buffered("");
    turns.push(turn);
    added.push(turn - (performance.now() - directStart));
  }
  return DEPTH_BUCKETS.map(([from, to]) => ({
    from,
    to,
    turn: spread(turns.slice(from, to + 1)),
    added: spread(added.slice(from, to + 1)),
  }));
}
