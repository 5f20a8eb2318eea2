/**
 * The metric children the hot path writes to, resolved once per label
 * combination (see label_cache.ts) from the families of metrics.ts.
 */
import type { MetricFamilies } from "./metrics.ts";
import { memo1, memo2, memo3 } from "./label_cache.ts";

export type Instruments = ReturnType<typeof instruments>;

export function instruments(f: MetricFamilies) {
  return {
    families: f,
    http: memo2((route: string, method: string) => ({
      duration: f.httpDuration.labels(route, method),
      status: memo1((status: number) => f.httpRequests.labels(route, method, String(status))),
    })),
    httpError: memo1((code: string) => f.httpErrors.labels(code)),
    turn: memo1((outcome: string) => f.turns.labels(outcome)),
    turnDuration: f.turnDuration.labels(),
    runsLive: f.runsLive.labels(),
    streamsLive: f.streamsLive.labels(),
    claim: memo1((operation: string) => f.runClaims.labels(operation)),
    supersede: memo1((operation: string) => f.runSupersedes.labels(operation)),
    inFlight: f.runInFlight.labels(),
    routing: memo1((kind: string) => f.routingDecisions.labels(kind)),
    hop: memo1((reason: string) => f.fallbackHops.labels(reason)),
    call: memo2((provider: string, model: string) => ({
      duration: f.providerDuration.labels(provider, model),
      firstToken: f.firstToken.labels(provider, model),
      outcome: memo1((outcome: string) => f.providerCalls.labels(provider, model, outcome)),
    })),
    usage: memo3((provider: string, model: string, task: string) => ({
      input: f.tokens.labels(provider, model, task, "input"),
      output: f.tokens.labels(provider, model, task, "output"),
      cost: f.cost.labels(provider, model, task),
    })),
    rateLimited: memo1((limit: string) => f.rateLimited.labels(limit)),
    budgetRefused: memo1((window: string) => f.budgetRefusals.labels(window)),
    db: memo1((driver: string) => ({
      inUse: f.dbInUse.labels(driver),
      kind: memo1((kind: string) => f.dbDuration.labels(driver, kind)),
    })),
  };
}
