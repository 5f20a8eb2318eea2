/**
 * Where the service's turns spent their time, from its own
 * `switchyard_turn_phase_seconds` histogram: `GET /metrics` scraped before and
 * after a run, the difference read as each phase's p50, p99 and mean (the
 * quantiles interpolated within the histogram's buckets, as Prometheus's
 * `histogram_quantile` does).
 */
const FAMILY = "switchyard_turn_phase_seconds";
/** The whole request inside the service's handler, by route: what the phases sit in. */
const HTTP_FAMILY = "switchyard_http_request_duration_seconds";
/** The phases' sum and the handler's time, under these names beside the phases. */
export const HANDLER = "(the handler: execute, whole)";
const EXECUTE_ROUTE = "/api/v1/sessions/:session_id/execute";

interface PhaseCounts {
  /** Upper bounds, ascending, +Inf last. */
  bounds: number[];
  /** Cumulative counts per bound. */
  cumulative: number[];
  sum: number;
  count: number;
}

export type PhaseScrape = Map<string, PhaseCounts>;

export interface PhaseSpread {
  p50: number;
  p99: number;
  mean: number;
  /** Turns that went through the phase. */
  count: number;
}

/** The service's phase histogram now, by phase. */
export async function scrapePhases(url: string): Promise<PhaseScrape> {
  const response = await fetch(`${url}/metrics`);
  const text = await response.text();
  if (!response.ok) throw new Error(`GET /metrics: ${response.status} ${text}`);
  const out: PhaseScrape = new Map();
  const of = (phase: string) => {
    let counts = out.get(phase);
    if (counts === undefined) {
      out.set(phase, counts = { bounds: [], cumulative: [], sum: 0, count: 0 });
    }
    return counts;
  };
  for (const line of text.split("\n")) {
    const family = line.startsWith(FAMILY)
      ? FAMILY
      : line.startsWith(HTTP_FAMILY)
      ? HTTP_FAMILY
      : null;
    if (family === null) continue;
    const match = /^(\w+)\{([^}]*)\} (\S+)$/.exec(line);
    if (match === null) continue;
    const labels = Object.fromEntries(
      [...match[2].matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (
      family === HTTP_FAMILY &&
      (labels.route !== EXECUTE_ROUTE || labels.method !== "POST")
    ) {
      continue;
    }
    const value = Number(match[3]);
    const counts = of(family === FAMILY ? labels.phase : HANDLER);
    if (match[1] === `${family}_bucket`) {
      counts.bounds.push(labels.le === "+Inf" ? Infinity : Number(labels.le));
      counts.cumulative.push(value);
    } else if (match[1] === `${family}_sum`) counts.sum = value;
    else if (match[1] === `${family}_count`) counts.count = value;
  }
  return out;
}

/** The q-quantile (0–1) of a cumulative histogram, linear within its bucket. */
function quantile(bounds: number[], cumulative: number[], q: number): number {
  const total = cumulative.at(-1) ?? 0;
  if (total === 0) return NaN;
  const rank = q * total;
  for (let i = 0; i < bounds.length; i++) {
    if (cumulative[i] < rank) continue;
    if (bounds[i] === Infinity) return bounds[i - 1] ?? NaN;
    const lower = i === 0 ? 0 : bounds[i - 1];
    const below = i === 0 ? 0 : cumulative[i - 1];
    const inBucket = cumulative[i] - below;
    return lower +
      (bounds[i] - lower) * (inBucket === 0 ? 1 : (rank - below) / inBucket);
  }
  return NaN;
}

/** Each phase's spread (in ms) over the turns between two scrapes. */
export function phaseSpreads(
  before: PhaseScrape,
  after: PhaseScrape,
): Map<string, PhaseSpread> {
  const out = new Map<string, PhaseSpread>();
  for (const [phase, a] of after) {
    const b = before.get(phase);
    const cumulative = a.cumulative.map((c, i) => c - (b?.cumulative[i] ?? 0));
    const count = a.count - (b?.count ?? 0);
    if (count <= 0) continue;
    out.set(phase, {
      p50: quantile(a.bounds, cumulative, 0.5) * 1000,
      p99: quantile(a.bounds, cumulative, 0.99) * 1000,
      mean: (a.sum - (b?.sum ?? 0)) / count * 1000,
      count,
    });
  }
  return out;
}

/** The provider's own phases: what the direct baseline pays too, so not the service's addition. */
export const PROVIDER_PHASES = new Set([
  "provider_connect",
  "provider_first_byte",
  "provider_rest",
]);
