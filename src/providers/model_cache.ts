import { clearTimeout, setTimeout } from "node:timers";

/**
 * A per-instance cache of provider listings, keyed by provider and credential
 * fingerprint, so a preview or a turn does not wait on a listing it already
 * has. Concurrent lookups of one key share one request; a waiter that gives up
 * (its deadline passes) leaves, and the request goes on, up to `maxFlightMs`,
 * so a listing slower than one waiter's deadline still lands for the next.
 * Meanwhile a waiter whose deadline is no longer than the time the listing has
 * already kept someone waiting is answered `ListingTimeout` at once: a provider
 * whose host swallows packets costs one request its deadline, not every
 * request. A failure is kept for a few seconds: a provider that is down (an
 * Ollama that is not running) would otherwise be asked again by every request,
 * each paying a connection attempt.
 */
export interface ModelCache<T> {
  /** The cached value, or the result of the one `load` in flight for `key`. */
  get(key: string, load: (signal: AbortSignal) => Promise<T>, deadline?: Deadline): Promise<T>;
  /** What `get` would settle with at once from the cache, without loading; undefined when nothing is held. */
  peek(key: string): { value: T } | { error: unknown } | undefined;
  /** Entries currently held (fresh or expired but not yet swept). */
  readonly size: number;
  /** Forgets everything, loads in flight too (they are cancelled). */
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
  /** How long a load may run, whoever still waits; default 60 s (the longest deadline a client may ask). */
  maxFlightMs?: number;
}

/** How long a waiter waits: `signal` aborts when its `ms` have passed. */
export interface Deadline {
  signal: AbortSignal;
  ms: number;
}

/** No listing within `ms`: a waiter's deadline, or the longest a load may run. */
export class ListingTimeout extends Error {
  override readonly name = "ListingTimeout";
  constructor(readonly ms: number) {
    super(`no listing within ${ms} ms`);
  }
}

interface Flight<T> {
  promise: Promise<T>;
  controller: AbortController;
  started: number;
  /** The longest a waiter waited on this load before giving up; 0 while none has. */
  overdueMs: number;
}

export const DEFAULT_LISTING_TTL_MS = 60_000;
export const DEFAULT_LISTING_FAILURE_TTL_MS = 2_000;
export const DEFAULT_MAX_FLIGHT_MS = 60_000;

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
  const maxFlightMs = options.maxFlightMs ?? DEFAULT_MAX_FLIGHT_MS;
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
    const flight: Flight<T> = {
      promise: Promise.resolve() as Promise<T>,
      controller,
      started: now(),
      overdueMs: 0,
    };
    // Unreferenced: a load left running never holds the process open.
    const cap = setTimeout(() => controller.abort(new ListingTimeout(maxFlightMs)), maxFlightMs);
    cap.unref();
    flight.promise = (async () => {
      try {
        // A load that ignores its signal still ends at the cap.
        const value = await untilAborted(load(controller.signal), controller.signal);
        // A load the cache was cleared of is nobody's any more.
        if (inFlight.get(key) === flight) store(key, value);
        return value;
      } catch (error) {
        const held = controller.signal.aborted ? controller.signal.reason : error;
        if (inFlight.get(key) === flight) {
          hold(failed, key, { error: held, expires: now() + failureTtlMs });
        }
        throw held;
      } finally {
        clearTimeout(cap);
        if (inFlight.get(key) === flight) inFlight.delete(key);
      }
    })();
    // Every waiter may leave before the load settles; its outcome is then nobody's.
    flight.promise.catch(() => {});
    inFlight.set(key, flight);
    return flight;
  };

  const join = (flight: Flight<T>, deadline?: Deadline): Promise<T> => {
    if (deadline === undefined) return flight.promise;
    if (flight.overdueMs > 0 && deadline.ms <= flight.overdueMs) {
      return Promise.reject(new ListingTimeout(flight.overdueMs));
    }
    return untilAborted(flight.promise, deadline.signal).catch((error) => {
      if (!deadline.signal.aborted) throw error;
      flight.overdueMs = Math.max(flight.overdueMs, deadline.ms, now() - flight.started);
      throw new ListingTimeout(deadline.ms);
    });
  };

  const peek = (key: string): { value: T } | { error: unknown } | undefined => {
    const hit = live(fresh, key);
    if (hit !== undefined) return { value: hit.value };
    const failure = live(failed, key);
    return failure === undefined ? undefined : { error: failure.error };
  };

  return {
    get(key, load, deadline) {
      const held = peek(key);
      if (held !== undefined) {
        return "value" in held ? Promise.resolve(held.value) : Promise.reject(held.error);
      }
      if (deadline?.signal.aborted) return Promise.reject(new ListingTimeout(deadline.ms));
      return join(inFlight.get(key) ?? start(key, load), deadline);
    },
    peek,
    get size() {
      return fresh.size;
    },
    clear() {
      for (const flight of inFlight.values()) flight.controller.abort();
      inFlight.clear();
      fresh.clear();
      failed.clear();
    },
  };
}
