import type { RateLimits } from "../config.ts";
import { failure } from "../core/errors.ts";
import { errorResponse } from "./error_response.ts";
import { createRateLimiter, type RateLimiter } from "./rate_limiter.ts";

/**
 * The service-side limits of one instance: a bucket per client address for
 * the unauthenticated endpoints that create users and tokens (and for failed
 * bearer authentications, so tokens cannot be guessed at full speed either),
 * and a bucket per user for everything a user does once authenticated.
 * Each check answers null to go on, or the 429 to send instead.
 */
export interface RequestLimits {
  byAddress(address: string | null, now: number): Response | null;
  byUser(userId: string, now: number): Response | null;
}

const UNLIMITED: RequestLimits = { byAddress: () => null, byUser: () => null };

export function createRequestLimits(limits: RateLimits): RequestLimits {
  if (!limits.enabled) return UNLIMITED;
  const addresses = createRateLimiter({
    perMinute: limits.anonymousPerMinute,
    burst: limits.anonymousBurst,
  });
  const users = createRateLimiter({ perMinute: limits.userPerMinute, burst: limits.userBurst });
  return {
    // No address is known only in process (tests, benchmarks): nothing to key by.
    byAddress: (address, now) =>
      address === null ? null : limited(addresses, address, now, "client address"),
    byUser: (userId, now) => limited(users, userId, now, "user"),
  };
}

function limited(limiter: RateLimiter, key: string, now: number, scope: string): Response | null {
  const waitMs = limiter.take(key, now);
  if (waitMs === 0) return null;
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return errorResponse(
    failure("rate_limited", `rate limit exceeded for this ${scope}: retry in ${seconds} s`, {
      retry_after_seconds: seconds,
    }),
    { headers: { "retry-after": String(seconds) } },
  );
}
