/**
 * The most thorough collection this runtime offers, for the moment start-up
 * is over and what it allocated is garbage: Bun's synchronous full
 * collection, or V8's `gc` (exposed by `deno task start`'s --expose-gc) in
 * its last-resort flavour. Unlike a plain major collection, that one also
 * shrinks the young generation that start-up grew: left alone, it stays
 * resident until V8's memory reducer runs, about 30 s later. Does nothing
 * where neither is exposed.
 */
export function collectAllGarbage(): void {
  const runtime = globalThis as {
    gc?: (options?: { type: string; execution: string; flavor: string }) => void;
    Bun?: { gc(force: boolean): void };
  };
  if (runtime.Bun !== undefined) runtime.Bun.gc(true);
  else runtime.gc?.({ type: "major", execution: "sync", flavor: "last-resort" });
}
