/**
 * The PostgreSQL server's CPU per execute claim, alone: `clients` loops each
 * claim a turn of their session (the prompt's message and trace event, the
 * history and memory read, as a plaintext turn does), then end it through a
 * second pool whose backends are not counted. The CPU is read from /proc for
 * the claim pool's own backends only, so other work on the server does not
 * count. `deno run --allow-all bench/claim_cpu.ts [clients] [seconds] [variant.sql]`, with
 * DATABASE_URL set; CLAIM_BATCHED=1 claims through the batching claimer,
 * CLAIM_MIGRATIONS=n stops the schema at migration n.
 */
import process from "node:process";
import { readFileSync } from "node:fs";
import { createScratchDatabase } from "../tests/support/databases.ts";
import { promptClaim } from "../tests/support/prompt_claim.ts";
import { uuidv7 } from "../src/platform/ids.ts";
import { openPostgres } from "../src/store/postgres_driver.ts";
import { migrate } from "../src/store/migrate.ts";
import { HistoryCache } from "../src/store/history_cache.ts";
import { claimForExecute, executeClaimer } from "../src/store/run_admission.ts";
import { MIGRATIONS } from "../src/store/migrations.ts";
import { insertSession } from "../src/store/sessions.ts";
import { insertUserWithKey } from "../src/store/users.ts";
import { writeTurn } from "../src/store/turn_writes.ts";

const clients = Number(Deno.args[0] ?? 32);
const seconds = Number(Deno.args[1] ?? 8);
const TURNS_PER_SESSION = 10;
const TICKS = 100;

function cpuMs(pids: number[]): number {
  let total = 0;
  for (const pid of pids) {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    total += Number(f[11]) + Number(f[12]);
  }
  return (total * 1000) / TICKS;
}

const scratch = await createScratchDatabase(process.env.DATABASE_URL!);
const claims = openPostgres(scratch.url, { maxConnections: clients });
const ends = openPostgres(scratch.url, { maxConnections: clients });
try {
  // CLAIM_MIGRATIONS=10 measures the claim as migration 010 left it.
  const upTo = Number(process.env.CLAIM_MIGRATIONS ?? MIGRATIONS.length);
  await migrate(claims, MIGRATIONS.slice(0, upTo));
  // A variant to compare: SQL applied after the migrations.
  if (Deno.args[2] !== undefined) await claims.exec(await Deno.readTextFile(Deno.args[2]));
  const userId = uuidv7();
  const now = new Date();
  await insertUserWithKey(claims, { id: userId, keyHash: "x", now });
  // CLAIM_BATCHED=1: through the instance's batching claimer, as the service claims.
  const claimer = process.env.CLAIM_BATCHED === "1"
    ? executeClaimer(claims)
    : { claim: (c: Parameters<typeof claimForExecute>[1]) => claimForExecute(claims, c) };
  let stop = false;
  let done = 0;
  const worker = async () => {
    const cache = new HistoryCache();
    while (!stop) {
      const sessionId = uuidv7();
      await insertSession(ends, { id: sessionId, userId, title: "b", now: new Date() });
      for (let i = 0; i < TURNS_PER_SESSION && !stop; i++) {
        const at = new Date();
        const prompt = promptClaim(sessionId, "hello there", at);
        const { runId, turnId } = prompt;
        const claim = await claimer.claim({
          ...prompt,
          instance: "bench",
          read: { userId, cache },
        });
        if (claim.kind !== "claimed") throw new Error("not claimed");
        done++;
        await writeTurn(ends, { runId, turnId, state: "idle", now: new Date() }, {
          messages: [{
            id: uuidv7(),
            sessionId,
            runId,
            role: "assistant",
            content: { plaintext: "a reply" },
            interruptedUnlessMoved: true,
            now: new Date(),
          }],
          trace: [],
          usage: [],
        });
      }
    }
  };
  // Warm every connection, then find the claim pool's backends.
  await Promise.all(
    Array.from({ length: clients }, () => claims.query("SELECT pg_sleep(0.05)")),
  );
  // Only the claim pool has connected yet: these are its backends.
  const counted = (await claims.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database()",
  )).map((r) => r.pid);
  if (process.env.CLAIM_PIDS) await Deno.writeTextFile(process.env.CLAIM_PIDS, counted.join(","));
  // A pilot second, then the measure.
  const running = Array.from({ length: clients }, worker);
  await new Promise((r) => setTimeout(r, 1500));
  const cpu0 = cpuMs(counted);
  const done0 = done;
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const cpu1 = cpuMs(counted);
  const done1 = done;
  const t1 = performance.now();
  stop = true;
  await Promise.all(running);
  const n = done1 - done0;
  console.log(
    `clients ${clients}, backends counted ${counted.length}: ${n} claims, ${
      (n / ((t1 - t0) / 1000)).toFixed(0)
    }/s, server CPU per claim ${((cpu1 - cpu0) / n).toFixed(3)} ms`,
  );
} finally {
  await claims.close();
  await ends.close();
  await scratch.drop();
}
