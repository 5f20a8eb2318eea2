/**
 * A per-instance cache of provider listings, keyed by provider and credential
 * fingerprint, so a preview or a turn does not wait on a listing it already
 * has. Concurrent lookups of one key share one request; a waiter that gives up
 * (its signal aborts) leaves, and the request is cancelled only when nobody
 * waits any more. Failures are not cached: the next lookup asks again.
 */
export interface ModelCache<T> {
  /** The cached value, or the result of the one `load` in flight for `key`. */
  get(key: string, load: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** Entries currently held (fresh or expired but not yet swept). */
  readonly size: number;
  clear(): void;
}

export interface ModelCacheOptions {
  /** How long a listing stays fresh; default 60 s. */
  ttlMs?: number;
  /** Injected clock (milliseconds); default `Date.now`. */
  now?: () => number;
  /** Bound on held entries, oldest dropped first; default 1000. */
  maxEntries?: number;
}

interface Flight<T> {
  promise: Promise<T>;
  controller: AbortController;
  waiters: number;
}

export const DEFAULT_LISTING_TTL_MS = 60_000;

const abortReason = (signal: AbortSignal): unknown =>
  signal.reason ?? new DOMException("The operation was aborted.", "AbortError");

/** Settles with `promise`, or rejects as soon as `signal` aborts. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

export function createModelCache<T>(options: ModelCacheOptions = {}): ModelCache<T> {
  const ttlMs = options.ttlMs ?? DEFAULT_LISTING_TTL_MS;
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 1000;
  const fresh = new Map<string, { value: T; expires: number }>();
  const inFlight = new Map<string, Flight<T>>();

  const store = (key: string, value: T) => {
    const at = now();
    for (const [k, entry] of fresh) if (entry.expires <= at) fresh.delete(k);
    fresh.delete(key);
    fresh.set(key, { value, expires: at + ttlMs });
    while (fresh.size > maxEntries) fresh.delete(fresh.keys().next().value as string);
  };

  const start = (key: string, load: (signal: AbortSignal) => Promise<T>): Flight<T> => {
    const controller = new AbortController();
    const flight: Flight<T> = { promise: Promise.resolve() as Promise<T>, controller, waiters: 0 };
    flight.promise = (async () => {
      try {
        const value = await load(controller.signal);
        if (!controller.signal.aborted) store(key, value);
        return value;
      } finally {
        if (inFlight.get(key) === flight) inFlight.delete(key);
      }
    })();
    // Every waiter may leave before the load settles; its outcome is then nobody's.
    flight.promise.catch(() => {});
    inFlight.set(key, flight);
    return flight;
  };

  const join = (key: string, flight: Flight<T>, signal?: AbortSignal): Promise<T> => {
    flight.waiters++;
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      flight.waiters--;
      if (flight.waiters === 0 && signal?.aborted) {
        flight.controller.abort();
        if (inFlight.get(key) === flight) inFlight.delete(key);
      }
    };
    const waiting = signal ? untilAborted(flight.promise, signal) : flight.promise;
    return waiting.finally(leave);
  };

  return {
    get(key, load, signal) {
      const hit = fresh.get(key);
      if (hit !== undefined && hit.expires > now()) return Promise.resolve(hit.value);
      if (hit !== undefined) fresh.delete(key);
      if (signal?.aborted) return Promise.reject(abortReason(signal));
      return join(key, inFlight.get(key) ?? start(key, load), signal);
    },
    get size() {
      return fresh.size;
    },
    clear() {
      fresh.clear();
    },
  };
}
