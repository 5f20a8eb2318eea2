import { type Bucket, type BucketRate, refillMs, takeToken } from "../core/token_bucket.ts";

/**
 * Token buckets by key (a client address or a user id), kept in this instance's
 * memory only: a limit is per instance and only a cache (DESIGN.md, Scale-out),
 * so checking it costs no database round trip.
 *
 * Memory is bounded: the map is kept in least-recently-used order, a bucket
 * idle long enough to have refilled completely is dropped (a new one would be
 * the same), and past `maxBuckets` the least recently used goes even if not
 * yet full, which can only make the limit more lenient, never stricter.
 */
export interface RateLimiter {
  /** 0 when the request may go on, else the milliseconds until it may be retried. */
  take(key: string, now: number): number;
  readonly size: number;
}

export const DEFAULT_MAX_BUCKETS = 100_000;

/** How many idle buckets one call may drop: keeps every call O(1) while the map drains. */
const EVICTIONS_PER_TAKE = 2;

export function createRateLimiter(rate: BucketRate, maxBuckets = DEFAULT_MAX_BUCKETS): RateLimiter {
  const buckets = new Map<string, Bucket>();
  const idleMs = refillMs(rate);

  function evict(now: number): void {
    for (let i = 0; i < EVICTIONS_PER_TAKE; i++) {
      const oldest = buckets.entries().next();
      if (oldest.done) return;
      const [key, bucket] = oldest.value;
      if (buckets.size <= maxBuckets && now - bucket.at < idleMs) return;
      buckets.delete(key);
    }
  }

  return {
    take(key, now) {
      let bucket = buckets.get(key);
      if (bucket === undefined) {
        bucket = { tokens: rate.burst, at: now };
      } else {
        buckets.delete(key);
      }
      buckets.set(key, bucket);
      const wait = takeToken(bucket, rate, now);
      evict(now);
      return wait;
    },
    get size() {
      return buckets.size;
    },
  };
}
