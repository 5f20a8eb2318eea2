/**
 * What a turn's `Server-Timing` phases account for, request by request: at
 * concurrency 1 each answer's phases (read from its header by the load
 * generator) beside the time the client saw. The service's own phases are
 * set against the added latency (the request's time minus the direct
 * request's p50, as table 1 defines it); what lies in no phase is the
 * request's time before the handler starts and after its header is written
 * (the runtime's HTTP layer both ways, the network, the client's reading).
 */
import { percentile } from "../measure.ts";
import { PROVIDER_PHASES } from "./phases.ts";

/** `auth;dur=1.23, parse;dur=0.40` → phase → ms. */
export function parseServerTiming(header: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const entry of header.split(",")) {
    const [name, ...params] = entry.trim().split(";");
    const dur = params.map((p) => /^\s*dur=([\d.]+)\s*$/.exec(p)).find((m) => m !== null);
    if (name && dur) out.set(name.trim(), (out.get(name.trim()) ?? 0) + Number(dur[1]));
  }
  return out;
}

export interface Coverage {
  /** Requests that carried the header. */
  requests: number;
  /** Median over requests of (the service's own phases) / (the request's added latency). */
  medianRatio: number;
  /**
   * Median over requests of every phase less the direct request, over the added
   * latency: (own + provider phases − direct p50) / (time − direct p50), that is
   * 1 − outside / added. The provider's phases hold the service's own outbound
   * HTTP client as well as the provider's work; what they take beyond the direct
   * request is time the service adds, inside a phase.
   */
  withCallRatio: number;
  /** p50 of the per-request sum of the service's own phases (the provider's left out). */
  ownP50: number;
  /** p50 of the added latency (table 1's figure). */
  addedP50: number;
  /** p50 of the provider's phases as the service saw them. */
  providerP50: number;
  /** p50 of the request's time in no phase: its time minus all its phases. */
  outsideP50: number;
  /** The direct request's p50: the transport and the provider's work, without the service. */
  directP50: number;
  /** p50 of (added latency − own phases): what the phases leave unexplained per request. */
  unexplainedP50: number;
  /** Each phase's p50 and mean over the requests (a phase a request skipped counts 0). */
  phases: Map<string, { p50: number; mean: number }>;
}

const p50 = (values: number[]) =>
  values.length === 0 ? NaN : percentile([...values].sort((a, b) => a - b), 50);

/** `times[i]` and `timings[i]` are one request's; `directP50` table 1's baseline. */
export function coverage(
  times: number[],
  timings: (string | null)[],
  directP50: number,
): Coverage | undefined {
  const own: number[] = [];
  const provider: number[] = [];
  const outside: number[] = [];
  const added: number[] = [];
  const ratios: number[] = [];
  const withCall: number[] = [];
  const unexplained: number[] = [];
  const perPhase = new Map<string, number[]>();
  const parsed: Map<string, number>[] = [];
  times.forEach((time, i) => {
    const header = timings[i];
    if (header === null || header === undefined) return;
    const phases = parseServerTiming(header);
    parsed.push(phases);
    let mine = 0;
    let theirs = 0;
    for (const [phase, ms] of phases) {
      if (PROVIDER_PHASES.has(phase)) theirs += ms;
      else mine += ms;
    }
    const add = time - directP50;
    own.push(mine);
    provider.push(theirs);
    outside.push(time - mine - theirs);
    added.push(add);
    ratios.push(mine / add);
    withCall.push((mine + theirs - directP50) / add);
    unexplained.push(add - mine);
  });
  if (parsed.length === 0) return undefined;
  const names = new Set(parsed.flatMap((m) => [...m.keys()]));
  for (const name of names) perPhase.set(name, parsed.map((m) => m.get(name) ?? 0));
  return {
    requests: parsed.length,
    medianRatio: p50(ratios),
    withCallRatio: p50(withCall),
    ownP50: p50(own),
    addedP50: p50(times) - directP50,
    providerP50: p50(provider),
    outsideP50: p50(outside),
    directP50,
    unexplainedP50: p50(unexplained),
    phases: new Map(
      [...perPhase].map(([name, values]) => [name, {
        p50: p50(values),
        mean: values.reduce((a, b) => a + b, 0) / values.length,
      }]),
    ),
  };
}
