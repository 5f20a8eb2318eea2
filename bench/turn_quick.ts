/**
 * A quick look at the turn path while working on it: added latency per turn
 * at concurrency 1 and turns per second at 32 clients, on the store named by
 * the first argument (`pglite` or `postgres`). `deno task bench` and
 * `deno task bench:peers` give the full tables.
 */
import process from "node:process";
import { createScratchDatabase } from "../tests/support/databases.ts";
import { printTable } from "./measure.ts";
import { cpuMs } from "./service_process.ts";
import {
  measureOverhead,
  measureThroughput,
  printOverhead,
  startTurnService,
} from "./turn_http.ts";

const store = process.argv[2] ?? Deno.args[0] ?? "pglite";
const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const scratch = store === "postgres" ? await createScratchDatabase(adminUrl) : undefined;
const s = await startTurnService(scratch?.url);
try {
  printOverhead("added latency", [
    await measureOverhead(s, store, Number(process.env.TURNS ?? 200)),
  ]);
  const cpu0 = cpuMs(s.pid);
  const row = await measureThroughput(s, `32 clients, 20 ms (${store})`, {
    total: 600,
    clients: 32,
    delayMs: 20,
  });
  printTable("throughput", [row]);
  const perTurn = (cpuMs(s.pid) - cpu0) / (row.iterations + 32);
  console.log(`service CPU per turn: ${perTurn.toFixed(2)} ms`);
} finally {
  await s.close();
  await scratch?.drop();
}
