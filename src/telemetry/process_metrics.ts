/**
 * The process's memory as gauges read at scrape time, under the names
 * prom-client's default metrics use, so an operator's usual queries work:
 * resident memory (the whole process: the embedded store's thread and its
 * WebAssembly heap included), and the JavaScript heap of the main thread.
 * prom-client's own default set is not used: its event-loop monitor keeps a
 * runtime resource alive per registry, and its `nodejs_version_info` names
 * the Node.js version a runtime imitates, not the runtime. No labels.
 */
import process from "node:process";
import { Gauge, type Registry } from "prom-client";

/** What a scrape reads: `process.memoryUsage()`, the same call in Deno and in Bun. */
export type MemoryReader = () => {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
};

export function registerProcessMetrics(
  registry: Registry,
  read: MemoryReader = () => process.memoryUsage(),
): void {
  const gauge = (name: string, help: string, value: (m: ReturnType<MemoryReader>) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(value(read()));
      },
    });
  gauge(
    "process_resident_memory_bytes",
    "Resident memory of the whole process, in bytes (the embedded store's included).",
    (m) => m.rss,
  );
  gauge(
    "nodejs_heap_size_total_bytes",
    "JavaScript heap of the main thread reserved by the engine, in bytes.",
    (m) => m.heapTotal,
  );
  gauge(
    "nodejs_heap_size_used_bytes",
    "JavaScript heap of the main thread in use, in bytes.",
    (m) => m.heapUsed,
  );
  gauge(
    "nodejs_external_memory_bytes",
    "Memory outside the JavaScript heap held by its objects (buffers), in bytes.",
    (m) => m.external,
  );
}
