/**
 * The Grafana dashboard in ops/grafana is data the tests hold to the metrics:
 * every query names only families the service exports, every family appears
 * on some panel, and the panels fit the grid without overlapping.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { metricFamilies } from "../../src/telemetry/metrics.ts";

interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { uid: string };
  gridPos: { h: number; w: number; x: number; y: number };
  targets?: { expr: string; datasource: { uid: string } }[];
}

const dashboard = JSON.parse(
  await readFile(new URL("../../ops/grafana/switchyard.json", import.meta.url), "utf8"),
) as { uid: string; title: string; panels: Panel[]; templating: { list: { name: string }[] } };

const exported = new Set(metricFamilies().registry.getMetricsAsArray().map((m) => m.name));
const queries = dashboard.panels.flatMap((p) => p.targets ?? []);

/** The service's own families, and the process's memory under prom-client's usual names. */
const FAMILY_NAME = /\b(?:switchyard|process|nodejs)_[a-z_]+/g;
const SELECTOR = /\b(?:switchyard|process|nodejs)_[a-z_]+\{[^}]*\}/g;

/** The family a series name belongs to (`_bucket`, `_count` and `_sum` are a histogram's). */
const familyOf = (series: string) => series.replace(/_(bucket|count|sum)$/, "");

describe("Grafana dashboard", () => {
  test("queries only metric families the service exports, and uses every one", () => {
    const used = new Set<string>();
    for (const { expr } of queries) {
      const names = expr.match(FAMILY_NAME) ?? [];
      assert.ok(names.length > 0, expr);
      for (const name of names) {
        assert.ok(exported.has(familyOf(name)), `${name} is not exported`);
        used.add(familyOf(name));
      }
    }
    assert.deepEqual([...exported].filter((f) => !used.has(f)), []);
  });

  test("every query is balanced and scoped to the chosen job and data source", () => {
    for (const { expr, datasource } of queries) {
      for (const [open, close] of [["(", ")"], ["{", "}"], ["[", "]"]]) {
        assert.equal(expr.split(open).length, expr.split(close).length, expr);
      }
      for (const selector of expr.match(SELECTOR) ?? []) {
        assert.ok(selector.includes('job=~"$job"'), selector);
      }
      assert.equal(datasource.uid, "${datasource}");
    }
    const variables = dashboard.templating.list.map((v) => v.name);
    assert.deepEqual(variables, ["datasource", "job"]);
  });

  test("panels have unique ids and tile the 24-column grid without overlapping", () => {
    const ids = dashboard.panels.map((p) => p.id);
    assert.equal(new Set(ids).size, ids.length);
    const cells = new Set<string>();
    for (const { title, gridPos: g } of dashboard.panels) {
      assert.ok(g.x >= 0 && g.w > 0 && g.x + g.w <= 24, title);
      for (let x = g.x; x < g.x + g.w; x++) {
        for (let y = g.y; y < g.y + g.h; y++) {
          assert.ok(!cells.has(`${x},${y}`), `${title} overlaps another panel`);
          cells.add(`${x},${y}`);
        }
      }
    }
  });
});
