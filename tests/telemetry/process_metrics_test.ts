/** The process's memory gauges: read when scraped, one sample each, prom-client's names. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Registry } from "prom-client";
import { registerProcessMetrics } from "../../src/telemetry/process_metrics.ts";

test("each scrape reads the memory anew", async () => {
  const registry = new Registry();
  let rss = 100;
  registerProcessMetrics(registry, () => ({ rss, heapTotal: 50, heapUsed: 40, external: 7 }));
  const sample = async (name: string) => {
    const json = await registry.getMetricsAsJSON();
    const values = json.find((m) => m.name === name)?.values ?? [];
    assert.equal(values.length, 1, name);
    return values[0].value;
  };
  assert.equal(await sample("process_resident_memory_bytes"), 100);
  rss = 250;
  assert.equal(await sample("process_resident_memory_bytes"), 250);
  assert.equal(await sample("nodejs_heap_size_total_bytes"), 50);
  assert.equal(await sample("nodejs_heap_size_used_bytes"), 40);
  assert.equal(await sample("nodejs_external_memory_bytes"), 7);
});

test("by default the figures are this process's own", async () => {
  const registry = new Registry();
  registerProcessMetrics(registry);
  const text = await registry.metrics();
  const rss = Number(/^process_resident_memory_bytes (\S+)$/m.exec(text)?.[1]);
  assert.ok(rss > 10e6, `resident ${rss}`);
});
