/**
 * Identical reads asked for at once, read once. A read asked for while an
 * identical one is in flight does not start its own: it waits for the next
 * one, which starts when the one in flight ends and is shared by every caller
 * that asked meanwhile. Each caller's answer is read after it asked, so it
 * holds every write acknowledged before it asked; any number of identical
 * reads at once cost two at most. For reads that are large and asked for in
 * bursts (a whole sessions list), where the store's time is the cost.
 */
export type SharedReads<T> = (key: string, read: () => Promise<T>) => Promise<T>;

export function sharedReads<T>(): SharedReads<T> {
  /** By key: the read in flight, and the one waiting for it to end, when anyone asked for it. */
  const inFlight = new Map<string, { current: Promise<T>; next: Promise<T> | null }>();
  const start = (key: string, read: () => Promise<T>): Promise<T> => {
    const entry: { current: Promise<T>; next: Promise<T> | null } = {
      current: read().finally(() => {
        if (entry.next === null) inFlight.delete(key);
      }),
      next: null,
    };
    inFlight.set(key, entry);
    return entry.current;
  };
  return (key, read) => {
    const entry = inFlight.get(key);
    if (entry === undefined) return start(key, read);
    // Starts in the same microtask as the one in flight settles: no one can ask in between.
    entry.next ??= entry.current.then(() => start(key, read), () => start(key, read));
    return entry.next;
  };
}
