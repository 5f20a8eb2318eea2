/** What every section of the peer benchmark works on, and the numbers it keeps for the summary. */
import process from "node:process";
import type { Spread } from "../measure.ts";
import type { ServiceClient } from "../turn_http.ts";
import type { DepthBucket } from "./latency.ts";
import type { StreamLevel, Throughput } from "./load.ts";
import type { PeerOptions } from "./options.ts";
import type { ProviderProcess } from "./provider_process.ts";
import type { Target } from "./targets.ts";
import type { PhaseSpread } from "./phases.ts";
import type { CommitFloor } from "./commit_floor.ts";
import type { ClientName } from "./load_client.ts";
import type { Coverage } from "./server_timing.ts";

export interface Service {
  store: string;
  target: Target;
  client: ServiceClient;
  /** The machine's floor under its store, measured once before the runs. */
  floor: CommitFloor;
}

export interface Bench {
  options: PeerOptions;
  provider: ProviderProcess;
  direct: Target;
  /** The fake provider read directly, holding each answer about as long as a turn's handler. */
  held: Target;
  portkey: Target;
  services: Service[];
}

/**
 * Numbers one run kept for the summary, keyed by target name (and `@clients` /
 * `@streams`); what a load generator measured (added latency, throughput,
 * phases, coverage) under `by(client, name)`.
 */
export interface Results {
  added: Map<string, Spread>;
  depth: Map<string, DepthBucket[]>;
  throughput: Map<string, Throughput>;
  streams: Map<string, StreamLevel>;
  preview: Map<string, number>;
  /** The service's turn phases by service name and `@1` (the latency blocks) or `@32` clients. */
  phases: Map<string, Map<string, PhaseSpread>>;
  /**
   * The compatible section's own figures (its interleaved blocks and 32-client
   * loops, native execute included), by target name.
   */
  compat: Map<string, { added: Spread; perSecond: number }>;
  /** What the service's Server-Timing phases account for at concurrency 1, by service. */
  coverage: Map<string, Coverage>;
  /** The held direct request's time less its handler's (p50), by client: the transport after a pause. */
  afterPause: Map<string, number>;
}

/** The key of what `client` measured on the target named `name`. */
export const by = (client: ClientName, name: string) => `${client}: ${name}`;

export const newResults = (): Results => ({
  added: new Map(),
  depth: new Map(),
  throughput: new Map(),
  streams: new Map(),
  preview: new Map(),
  phases: new Map(),
  coverage: new Map(),
  compat: new Map(),
  afterPause: new Map(),
});

export const progress = (line: string) => process.stderr.write(`${line}\n`);

export interface Memory {
  /** VmRSS in MB by target name, after start, sign-in and a few seconds. */
  idle: Map<string, number>;
  /** Peak VmRSS in MB by target name through the throughput and stream runs. */
  loaded: Map<string, number>;
}
