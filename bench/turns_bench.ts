/**
 * The run engine's benchmarks (issue 5), printed as tables: added latency per
 * turn and turns per second on PGlite and, when DATABASE_URL names a
 * PostgreSQL server, on a scratch database made for the run and dropped
 * after it; then concurrent SSE streams held without a stall (on PGlite, the
 * default store). Sized to finish in about a minute and a half.
 */
import process from "node:process";
import { createScratchDatabase } from "../tests/support/databases.ts";
import { type BenchRow, printTable } from "./measure.ts";
import { measureStreams, printStreams, type StreamLevel } from "./stream_http.ts";
import {
  measureOverhead,
  measureThroughput,
  type OverheadRow,
  printOverhead,
  startTurnService,
  type TurnService,
} from "./turn_http.ts";

const OVERHEAD_TURNS = 300;
const THROUGHPUT_TURNS = 1000;
const STREAM_LEVELS = [50, 100, 200, 400, 800, 1600];

async function withService<T>(
  databaseUrl: string | undefined,
  fn: (s: TurnService) => Promise<T>,
): Promise<T> {
  const s = await startTurnService(databaseUrl);
  try {
    return await fn(s);
  } catch (error) {
    const log = s.recentErrors().join("\n");
    throw new Error(`${error instanceof Error ? error.message : error}\nservice errors:\n${log}`);
  } finally {
    await s.close();
  }
}

export async function runTurnBenchmarks(): Promise<void> {
  const overhead: OverheadRow[] = [];
  const throughput: BenchRow[] = [];
  let streams: StreamLevel[] = [];
  const storeRun = async (store: string, s: TurnService) => {
    overhead.push(await measureOverhead(s, store, OVERHEAD_TURNS));
    throughput.push(
      await measureThroughput(s, `execute, 32 clients, provider answers in 20 ms (${store})`, {
        total: THROUGHPUT_TURNS,
        clients: 32,
        delayMs: 20,
      }),
    );
  };
  await withService(undefined, async (s) => {
    await storeRun("PGlite", s);
    streams = await measureStreams(s, STREAM_LEVELS);
  });
  const adminUrl = process.env.DATABASE_URL;
  if (adminUrl) {
    const scratch = await createScratchDatabase(adminUrl);
    try {
      await withService(scratch.url, (s) => storeRun("PostgreSQL", s));
    } finally {
      await scratch.drop();
    }
  }
  printOverhead(
    "Added latency per turn: POST …/execute (buffered, plaintext session, openai/gpt-4o-mini on a fake provider answering at once) minus the same request sent to the fake directly, 1 client",
    overhead,
  );
  printTable("Turns per second over HTTP (buffered execute, one session per client)", throughput);
  printStreams(
    `Concurrent SSE turns on PGlite (each streams 20 deltas 100 ms apart; levels ${
      STREAM_LEVELS.join(", ")
    }, stopping at the first that stalls)`,
    streams,
  );
  if (!adminUrl) console.log("\n(PostgreSQL rows skipped: DATABASE_URL is not set.)");
}
