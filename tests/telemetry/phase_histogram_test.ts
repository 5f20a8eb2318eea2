/**
 * The phase histogram's exposition, read by a real Prometheus text parser:
 * each phase a turn met counts once in the bucket of its time (cumulative
 * buckets, `+Inf` last), with its sum and count, per store; a phase no turn
 * met is not exported.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import parsePrometheus from "parse-prometheus-text-format";
import { metricFamilies } from "../../src/telemetry/metrics.ts";
import type { Phase, PhaseClock } from "../../src/telemetry/phase_clock.ts";

/** A clock that met exactly these phases, in seconds. */
function metClock(phases: [Phase, number][]): PhaseClock {
  return {
    lap() {},
    answered() {},
    header: () => null,
    forEach: (fn) => phases.forEach(([phase, seconds]) => fn(phase, seconds)),
  };
}

/** The value of the sample `series` with exactly `labels` (in the exposition's order), or null. */
function sample(text: string, series: string, labels: string): number | null {
  const line = text.split("\n").find((l) => l.startsWith(`${series}{${labels}} `));
  return line === undefined ? null : Number(line.slice(line.lastIndexOf(" ") + 1));
}

describe("switchyard_turn_phase_seconds", () => {
  test("counts each phase in its bucket, per store, cumulative as Prometheus reads it", async () => {
    const f = metricFamilies();
    f.turnPhases.observe(
      "pglite",
      metClock([["auth", 0.0004], ["claim", 0.002], ["write", 120]]),
    );
    f.turnPhases.observe(
      "pglite",
      metClock([["auth", 0.0005], ["claim", 0.0021]]),
    );
    f.turnPhases.observe("postgres", metClock([["claim", 0.00001]]));
    const text = await f.registry.metrics();
    // A well-formed exposition (the parser throws on one that is not), typed as a histogram.
    const family = (parsePrometheus(text) as { name: string; type: string }[])
      .find((x) => x.name === f.turnPhases.name);
    assert.equal(family?.type, "HISTOGRAM");
    const name = f.turnPhases.name;
    const bucket = (phase: string, store: string, le: string) =>
      sample(
        text,
        `${name}_bucket`,
        `phase="${phase}",store="${store}",le="${le}"`,
      );
    const of = (suffix: string, phase: string, store: string) =>
      sample(text, `${name}_${suffix}`, `phase="${phase}",store="${store}"`);
    assert.equal(of("count", "auth", "pglite"), 2);
    assert.ok(Math.abs(of("sum", "auth", "pglite")! - 0.0009) < 1e-12);
    // 0.0004 ≤ 0.0005 and 0.0005 ≤ 0.0005: both in the 0.0005 bucket, none below it.
    assert.equal(bucket("auth", "pglite", "0.00025"), 0);
    assert.equal(bucket("auth", "pglite", "0.0005"), 2);
    assert.equal(bucket("auth", "pglite", "+Inf"), 2);
    assert.equal(bucket("claim", "pglite", "0.0015"), 0);
    assert.equal(bucket("claim", "pglite", "0.002"), 1);
    assert.equal(bucket("claim", "pglite", "0.003"), 2);
    // Over every bound: only in +Inf.
    assert.equal(bucket("write", "pglite", "60"), 0);
    assert.equal(bucket("write", "pglite", "+Inf"), 1);
    assert.equal(of("count", "write", "pglite"), 1);
    assert.equal(bucket("claim", "postgres", "0.00005"), 1);
    assert.equal(of("count", "auth", "postgres"), null);
    assert.equal(of("count", "decision", "pglite"), null);
  });
});
