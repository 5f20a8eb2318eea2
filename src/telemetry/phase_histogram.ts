/**
 * `switchyard_turn_phase_seconds{phase, store}`: every claimed turn observes
 * a dozen phases, so the counts live in typed arrays indexed by phase and
 * bucket (an observation is a bucket search and three additions, where
 * prom-client's histogram builds and hashes a label object per observation),
 * and become Prometheus buckets only when scraped. It is registered as a
 * metric of the instance's own registry, which prints it like its others.
 */
import type { Registry } from "prom-client";
import type { PhaseClock } from "./phase_clock.ts";
import { PHASES } from "./phase_clock.ts";

const NAME = "switchyard_turn_phase_seconds";
const HELP = "Claimed turns' time by phase (the phases of the Server-Timing header), by store.";

/** A turn's phases run from tens of microseconds (a decision) to seconds (a provider). */
const BOUNDS = [
  0.00005,
  0.0001,
  0.00025,
  0.0005,
  0.00075,
  0.001,
  0.0015,
  0.002,
  0.003,
  0.005,
  0.0075,
  0.01,
  0.015,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
  30,
  60,
];
/** The buckets of one phase: one per bound, and the last for what is over every bound. */
const SLOTS = BOUNDS.length + 1;
const INDEX = new Map<string, number>(PHASES.map((p, i) => [p, i]));

interface StoreSeries {
  /** Per phase, per slot: observations in that bucket alone (not cumulative). */
  counts: Float64Array;
  sums: Float64Array;
  totals: Float64Array;
}

interface Sample {
  labels: Record<string, string | number>;
  value: number;
  metricName: string;
}

export interface PhaseHistogram {
  readonly name: string;
  /** Adds each phase the clock met, in seconds, under `store` (pglite, postgres). */
  observe(store: string, clock: PhaseClock): void;
}

export function phaseHistogram(registry: Registry): PhaseHistogram {
  const series = new Map<string, StoreSeries>();
  const seriesOf = (store: string) => {
    let s = series.get(store);
    if (s === undefined) {
      s = {
        counts: new Float64Array(PHASES.length * SLOTS),
        sums: new Float64Array(PHASES.length),
        totals: new Float64Array(PHASES.length),
      };
      series.set(store, s);
    }
    return s;
  };
  const samples = (): Sample[] => {
    const out: Sample[] = [];
    for (const [store, s] of series) {
      for (let p = 0; p < PHASES.length; p++) {
        if (s.totals[p] === 0) continue;
        const phase = PHASES[p];
        let cumulative = 0;
        for (let b = 0; b < SLOTS; b++) {
          cumulative += s.counts[p * SLOTS + b];
          out.push({
            labels: { phase, store, le: b < BOUNDS.length ? BOUNDS[b] : "+Inf" },
            value: cumulative,
            metricName: `${NAME}_bucket`,
          });
        }
        out.push({ labels: { phase, store }, value: s.sums[p], metricName: `${NAME}_sum` });
        out.push({ labels: { phase, store }, value: s.totals[p], metricName: `${NAME}_count` });
      }
    }
    return out;
  };
  const metric = {
    name: NAME,
    help: HELP,
    type: "histogram",
    aggregator: "sum",
    labelNames: ["phase", "store"],
    get: () =>
      Promise.resolve({
        name: NAME,
        help: HELP,
        type: "histogram",
        values: samples(),
        aggregator: "sum",
      }),
    reset: () => series.clear(),
    observe(store: string, clock: PhaseClock) {
      const s = seriesOf(store);
      clock.forEach((phase, seconds) => {
        const p = INDEX.get(phase)!;
        let b = 0;
        while (b < BOUNDS.length && seconds > BOUNDS[b]) b++;
        s.counts[p * SLOTS + b]++;
        s.sums[p] += seconds;
        s.totals[p]++;
      });
    },
  };
  registry.registerMetric(metric as unknown as Parameters<Registry["registerMetric"]>[0]);
  return metric;
}
