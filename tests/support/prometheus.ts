/**
 * Reads `GET /metrics` the way Prometheus does: the text goes through
 * parse-prometheus-text-format (which throws on a malformed exposition), and
 * samples are looked up by family name and exact label set.
 */
import assert from "node:assert/strict";
import parsePrometheus from "parse-prometheus-text-format";
import type { Handler } from "../../src/http/handler.ts";

interface Sample {
  value?: string;
  labels?: Record<string, string>;
}

interface Family {
  name: string;
  type: string;
  metrics: Sample[];
}

export interface Scrape {
  text: string;
  families: Map<string, Family>;
  /** A counter or gauge sample with exactly `labels`; 0 when absent. */
  value(name: string, labels?: Record<string, string>): number;
  /**
   * A histogram's `_count` with exactly `labels`. The parser folds labelled
   * histograms into one sample, so the count is read from the checked text.
   */
  count(name: string, labels?: Record<string, string>): number;
}

const sameLabels = (a: Record<string, string> = {}, b: Record<string, string>) =>
  Object.keys(a).length === Object.keys(b).length &&
  Object.entries(b).every(([k, v]) => a[k] === v);

export async function scrape(handler: Handler, headers: HeadersInit = {}): Promise<Scrape> {
  const response = await handler(new Request("http://127.0.0.1/metrics", { headers }));
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  const text = await response.text();
  const families = new Map<string, Family>(
    (parsePrometheus(text) as Family[]).map((f) => [f.name, f]),
  );
  return {
    text,
    families,
    value(name, labels = {}) {
      const family = families.get(name);
      assert.ok(family, `${name} is exported`);
      assert.ok(
        family.type === "COUNTER" || family.type === "GAUGE",
        `${name} is a counter or gauge`,
      );
      const sample = family.metrics.find((s) => sameLabels(s.labels, labels));
      return sample === undefined ? 0 : Number(sample.value);
    },
    count(name, labels = {}) {
      assert.equal(families.get(name)?.type, "HISTOGRAM", `${name} is a histogram`);
      const prefix = `${name}_count`;
      for (const line of text.split("\n")) {
        if (!line.startsWith(prefix)) continue;
        const body = /^\S+?\{(.*)\} (\S+)$/.exec(line) ?? [line, "", line.split(" ")[1]];
        const found = Object.fromEntries(
          [...body[1].matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
        );
        if (sameLabels(found, labels)) return Number(body[2]);
      }
      return 0;
    },
  };
}

/** What changed between two scrapes: a counter or gauge, or with `histogram`, a histogram's count. */
export function delta(
  before: Scrape,
  after: Scrape,
  name: string,
  labels: Record<string, string> = {},
  histogram = false,
): number {
  return histogram
    ? after.count(name, labels) - before.count(name, labels)
    : after.value(name, labels) - before.value(name, labels);
}
