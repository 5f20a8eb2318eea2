/** Timing helpers shared by the benchmarks: percentiles over per-call wall time. */
export interface BenchRow {
  name: string;
  iterations: number;
  p50: number;
  p99: number;
  perSecond: number;
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export interface Spread {
  p50: number;
  p99: number;
}

/** p50 and p99 of unsorted times (the input is left as it was). */
export function spread(times: number[]): Spread {
  const sorted = [...times].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

function row(name: string, times: number[], totalMs: number): BenchRow {
  times.sort((a, b) => a - b);
  return {
    name,
    iterations: times.length,
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    perSecond: times.length / (totalMs / 1000),
  };
}

export async function measure(
  name: string,
  iterations: number,
  fn: () => Promise<unknown>,
): Promise<BenchRow> {
  for (let i = 0; i < Math.min(50, iterations); i++) await fn(); // warm up
  const times: number[] = [];
  const start = performance.now();
  for (let i = 0; i < iterations; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return row(name, times, performance.now() - start);
}

/** How long `measureSync` runs its function before timing it, at the least. */
const SYNC_WARM_UP_MS = 1000;

export function measureSync(name: string, iterations: number, fn: () => void): BenchRow {
  // Warm up: the JIT, then the optimising tier, and the young generation grown to the size this
  // work keeps it at (a fresh process starts it small, and its frequent collections would land in
  // the first timed calls' p99).
  const warm = performance.now() + SYNC_WARM_UP_MS;
  for (let i = 0; i < Math.min(1000, iterations) || performance.now() < warm; i++) fn();
  const times: number[] = [];
  const start = performance.now();
  for (let i = 0; i < iterations; i++) {
    const t = performance.now();
    fn();
    times.push(performance.now() - t);
  }
  return row(name, times, performance.now() - start);
}

/** `clients` loops sending `fn` until `total` calls were made; per-call latency and throughput. */
export async function measureConcurrent(
  name: string,
  total: number,
  clients: number,
  fn: () => Promise<unknown>,
): Promise<BenchRow> {
  for (let i = 0; i < 50; i++) await fn(); // warm up
  const times: number[] = [];
  let started = 0;
  const start = performance.now();
  const client = async () => {
    while (started < total) {
      started++;
      const t = performance.now();
      await fn();
      times.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: clients }, client));
  return row(name, times, performance.now() - start);
}

export function printTable(title: string, rows: BenchRow[]): void {
  const fmt = (ms: number) => ms.toFixed(3);
  console.log(`\n${title}`);
  console.log("| benchmark | iterations | p50 ms | p99 ms | per second |");
  console.log("|---|---:|---:|---:|---:|");
  for (const r of rows) {
    console.log(
      `| ${r.name} | ${r.iterations} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${
        Math.round(r.perSecond)
      } |`,
    );
  }
}
