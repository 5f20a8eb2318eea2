/**
 * A token bucket as plain data: `burst` tokens at most, refilled at
 * `perMinute` a minute. Time comes in as milliseconds, so the arithmetic is
 * pure and the same under every runtime.
 */
export interface BucketRate {
  perMinute: number;
  burst: number;
}

export interface Bucket {
  tokens: number;
  /** When `tokens` was last brought up to date, in ms. */
  at: number;
}

/** Milliseconds an untouched bucket takes to refill completely: after that it is as good as new. */
export const refillMs = (rate: BucketRate): number => rate.burst * 60_000 / rate.perMinute;

/**
 * Takes one token, updating `bucket` in place. Answers 0 when a token was
 * taken, otherwise the milliseconds until one will be there.
 */
export function takeToken(bucket: Bucket, rate: BucketRate, now: number): number {
  const elapsed = Math.max(0, now - bucket.at);
  bucket.tokens = Math.min(rate.burst, bucket.tokens + elapsed * rate.perMinute / 60_000);
  bucket.at = now;
  if (bucket.tokens >= 1) {
    bucket.tokens -= 1;
    return 0;
  }
  return Math.ceil((1 - bucket.tokens) * 60_000 / rate.perMinute);
}
