/**
 * What a budget costs a turn: the same native turn for a user without a
 * budget and for one with a daily budget it never reaches, interleaved at
 * concurrency 1 on the same service. The target: the budget check adds at
 * most 0.1 ms p50.
 */
import { spread } from "../measure.ts";
import { newSession, postJson } from "../service_process.ts";
import type { ServiceClient } from "../turn_http.ts";
import { type Bench, progress } from "./context.ts";
import { interleavedLatency } from "./latency.ts";
import { ms, printTable } from "./report.ts";
import { serviceTarget } from "./targets.ts";

/** The operator token the benchmark's services start with (ROUTER_AUTH_OPERATOR_TOKEN). */
export const BENCH_OPERATOR_TOKEN = "bench-operator-token-0123456789";

/** A second user of the service, given a budget by the operator, signed in. */
async function budgetedClient(s: ServiceClient): Promise<ServiceClient> {
  const operator = {
    authorization: `Bearer ${BENCH_OPERATOR_TOKEN}`,
    "content-type": "application/json",
  };
  const user = await postJson(s.url, "/api/v1/admin/users", operator, { name: "budgeted" });
  const budget = await fetch(`${s.url}/api/v1/admin/users/${user.user_id}`, {
    method: "PUT",
    headers: operator,
    body: JSON.stringify({ budget: { daily: "1000000", monthly: "1000000" } }),
  });
  if (!budget.ok) throw new Error(`budget: ${budget.status} ${await budget.text()}`);
  const { token } = await postJson(s.url, "/api/v1/auth/sign-in", {
    "x-router-api-key": user.api_key,
  });
  const headers = { ...s.headers, authorization: `Bearer ${token}` };
  return { ...s, headers, newSession: () => newSession(s.url, headers) };
}

export async function budgetSection(b: Bench): Promise<void> {
  const rows = [];
  await b.provider.setPace({ delayMs: 0 });
  for (const s of b.services) {
    progress(`budget: ${s.store}, ${b.options.latency.blocks} blocks per target …`);
    const without = serviceTarget(`${s.store}, no budget`, s.client);
    const within = serviceTarget(`${s.store}, a budget`, await budgetedClient(s.client));
    const runs = await interleavedLatency([without, within], b.options.latency);
    const free = spread(runs.get(without)!.times);
    const budgeted = spread(runs.get(within)!.times);
    rows.push([
      s.store,
      ms(free.p50),
      ms(budgeted.p50),
      ms(budgeted.p50 - free.p50),
      ms(free.p99),
      ms(budgeted.p99),
    ]);
  }
  printTable(
    "7. What a budget costs a turn: the same persisted buffered turn (a priced model) for a user without a budget and for one with daily and monthly budgets it never reaches, interleaved in blocks at concurrency 1. Target: the budget check adds at most 0.1 ms p50",
    [
      "store",
      "p50 ms, no budget",
      "p50 ms, a budget",
      "added p50 ms",
      "p99 ms, no budget",
      "p99 ms, a budget",
    ],
    rows,
  );
}
