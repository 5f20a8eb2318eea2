/**
 * A per-instance cache of provider listings, keyed by provider and credential
 * fingerprint, so a preview or a turn does not wait on a listing it already
 * has. Concurrent lookups of one key share one request; a waiter that gives up
 * (its signal aborts) leaves, and the request is cancelled only when nobody
 * waits any more. A failure is kept for a few seconds: a provider that is down
 * (an Ollama that is not running) would otherwise be asked again by every
 * request, each paying a connection attempt.
 */
export interface ModelCache<T> {
  /** The cached value, or the result of the one `load` in flight for `key`. */
  get(key: string, load: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** What `get` would settle with at once from the cache, without loading; undefined when nothing is held. */
  peek(key: string): { value: T } | { error: unknown } | undefined;
  /** Entries currently held (fresh or expired but not yet swept). */
  readonly size: number;
  clear(): void;
}

export interface ModelCacheOptions {
  /** How long a listing stays fresh; default 60 s. */
  ttlMs?: number;
  /** Injected clock (milliseconds); default `Date.now`. */
  now?: () => number;
  /** How long a failed listing is answered from the cache; default 2 s. */
  failureTtlMs?: number;
  /** Bound on held entries (and on held failures), oldest dropped first; default 1000. */
  maxEntries?: number;
}

interface Flight<T> {
  promise: Promise<T>;
  controller: AbortController;
  waiters: number;
}

export const DEFAULT_LISTING_TTL_MS = 60_000;
export const DEFAULT_LISTING_FAILURE_TTL_MS = 2_000;

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
  const failureTtlMs = options.failureTtlMs ?? DEFAULT_LISTING_FAILURE_TTL_MS;
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 1000;
  const fresh = new Map<string, { value: T; expires: number }>();
  const failed = new Map<string, { error: unknown; expires: number }>();
  const inFlight = new Map<string, Flight<T>>();

  const hold = <E extends { expires: number }>(map: Map<string, E>, key: string, entry: E) => {
    for (const [k, held] of map) if (held.expires <= now()) map.delete(k);
    map.delete(key);
    map.set(key, entry);
    while (map.size > maxEntries) map.delete(map.keys().next().value as string);
  };
  const store = (key: string, value: T) => {
    failed.delete(key);
    hold(fresh, key, { value, expires: now() + ttlMs });
  };
  /** The live entry of `key` in `map`; an expired one is dropped. */
  const live = <E extends { expires: number }>(map: Map<string, E>, key: string) => {
    const entry = map.get(key);
    if (entry === undefined || entry.expires > now()) return entry;
    map.delete(key);
    return undefined;
  };

  const start = (key: string, load: (signal: AbortSignal) => Promise<T>): Flight<T> => {
    const controller = new AbortController();
    const flight: Flight<T> = { promise: Promise.resolve() as Promise<T>, controller, waiters: 0 };
    flight.promise = (async () => {
      try {
        const value = await load(controller.signal);
        if (!controller.signal.aborted) store(key, value);
        return value;
      } catch (error) {
        if (!controller.signal.aborted) {
          hold(failed, key, { error, expires: now() + failureTtlMs });
        }
        throw error;
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

  const peek = (key: string): { value: T } | { error: unknown } | undefined => {
    const hit = live(fresh, key);
    if (hit !== undefined) return { value: hit.value };
    const failure = live(failed, key);
    return failure === undefined ? undefined : { error: failure.error };
  };

  return {
    get(key, load, signal) {
      const held = peek(key);
      if (held !== undefined) {
        return "value" in held ? Promise.resolve(held.value) : Promise.reject(held.error);
      }
      if (signal?.aborted) return Promise.reject(abortReason(signal));
      return join(key, inFlight.get(key) ?? start(key, load), signal);
    },
    peek,
    get size() {
      return fresh.size;
    },
    clear() {
      fresh.clear();
      failed.clear();
    },
  };
}
