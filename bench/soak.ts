/**
 * The soak (issue 12): the service as a separate process under a steady mixed
 * load for 10 minutes (`--minutes N` for shorter), then a table per minute:
 * requests of each kind, failures, the added latency of a buffered turn (p50,
 * p99: execute time minus the provider's own fixed answer time) and the
 * service's resident memory. Memory must stay flat: the growth from the end
 * of minute 1 (warm-up) to the end is printed and must stay under 10 %.
 * A session is deleted after its last turn, so deletes balance inserts; on
 * PGlite the table also shows the store's tables and indexes on disk and what
 * the store vacuumed, and a second table each large table's size per minute:
 * they must stop growing.
 *
 * `deno task bench:soak [--minutes N] [--store pglite|postgres] [--load X]`: PGlite keeps
 * its data in a temporary directory (in memory, the data itself would grow
 * the process); PostgreSQL uses a scratch database of DATABASE_URL. Not in CI.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { createScratchDatabase } from "../tests/support/databases.ts";
import { percentile } from "./measure.ts";
import { relationNames, sizesByTable, type SizeSnapshot, snapshotSizes } from "./store_sizes.ts";
import { executeTurn, startTurnService, TURN_BODY, type TurnService } from "./turn_http.ts";

/**
 * Requests started per second, per kind, times `--load` (default 1): open
 * loop, so a slow answer never slows the load. Sized to leave a shared
 * two-core machine headroom; raise `--load` on a quiet one.
 */
const RATES = { turn: 4, stream: 2, preview: 10, read: 10 } as const;
type Kind = keyof typeof RATES;
/** A kind with this many requests unanswered skips its next start (counted) instead of piling up. */
const MAX_IN_FLIGHT = 64;
/** Turns per session before a new one: history, and so each turn's work, stays bounded. */
const TURNS_PER_SESSION = 10;
const PROVIDER_DELAY_MS = 20;
const STREAM = { chunks: 5, chunkGapMs: 20 };

interface Minute {
  done: Record<Kind, number>;
  /** Sessions deleted after their last turn. */
  deleted: number;
  failed: number;
  skipped: number;
  added: number[];
  rssMb: number;
  /** The store's relation files at the minute's end (PGlite). */
  sizes?: SizeSnapshot;
  /** What the store vacuumed, froze or analyzed in the minute, and for how long (PGlite). */
  maintained: { table: string; kind: string; ms: number }[];
}

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
  return kb / 1024;
}

async function streamTurn(s: TurnService, sessionId: string): Promise<void> {
  const response = await fetch(`${s.url}${s.executePath(sessionId)}`, {
    method: "POST",
    headers: { ...s.headers, accept: "text/event-stream" },
    body: JSON.stringify(TURN_BODY),
  });
  const text = await response.text();
  if (!text.includes('"type":"turn_end","status":"completed"')) {
    throw new Error(`stream: ${response.status} ${text.slice(-300)}`);
  }
}

async function getOk(s: TurnService, path: string, init: RequestInit = {}): Promise<void> {
  const response = await fetch(`${s.url}${path}`, { headers: s.headers, ...init });
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
}

/**
 * Sessions handed to one turn at a time (a session runs one turn at once),
 * each retired after TURNS_PER_SESSION turns so its history stays short.
 */
function sessionPool(s: TurnService, retired: () => void) {
  const idle: { id: string; turns: number }[] = [];
  return {
    async use<T>(fn: (id: string) => Promise<T>): Promise<T> {
      const session = idle.pop() ?? { id: await s.newSession(), turns: 0 };
      let result: T;
      try {
        result = await fn(session.id);
      } finally {
        if (++session.turns < TURNS_PER_SESSION) idle.push(session);
      }
      if (session.turns >= TURNS_PER_SESSION) {
        await getOk(s, `/api/v1/sessions/${session.id}`, { method: "DELETE" });
        retired();
      }
      return result;
    },
  };
}

async function soak(
  s: TurnService,
  minutes: number,
  load: number,
  store: { dataDir?: string; maintained: Minute["maintained"] },
): Promise<Minute[]> {
  s.provider.pace.delayMs = PROVIDER_DELAY_MS;
  Object.assign(s.provider.pace, STREAM);
  const sessions = sessionPool(s, () => minute.deleted++);
  const readable = await s.newSession();
  await executeTurn(s, readable);
  const work: Record<Kind, () => Promise<number | null>> = {
    turn: () =>
      sessions.use(async (id) => {
        const t = performance.now();
        await executeTurn(s, id);
        return performance.now() - t - PROVIDER_DELAY_MS;
      }),
    stream: () => sessions.use(async (id) => (await streamTurn(s, id), null)),
    preview: async () => (await getOk(s, `/api/v1/sessions/${readable}/preview`, {
      method: "POST",
      body: JSON.stringify(TURN_BODY),
    }),
      null),
    // A session that stays: one of the pool's may be deleted while read.
    read: async () => (await getOk(s, `/api/v1/sessions/${readable}`), null),
  };
  const fresh = (): Minute => ({
    done: { turn: 0, stream: 0, preview: 0, read: 0 },
    deleted: 0,
    maintained: [],
    failed: 0,
    skipped: 0,
    added: [],
    rssMb: 0,
  });
  const minutesDone: Minute[] = [];
  let minute = fresh();
  const inFlight: Record<Kind, number> = { turn: 0, stream: 0, preview: 0, read: 0 };
  const pending = new Set<Promise<void>>();
  let firstError: string | undefined;

  const start = (kind: Kind) => {
    if (inFlight[kind] >= MAX_IN_FLIGHT) return void minute.skipped++;
    inFlight[kind]++;
    const counted = minute;
    const p = work[kind]().then(
      (added) => {
        counted.done[kind]++;
        if (added !== null) counted.added.push(added);
      },
      (error) => {
        counted.failed++;
        firstError ??= String(error);
      },
    ).finally(() => {
      inFlight[kind]--;
      pending.delete(p);
    });
    pending.add(p);
  };
  const timers = (Object.keys(RATES) as Kind[]).map((kind) =>
    setInterval(() => start(kind), 1000 / (RATES[kind] * load))
  );
  const began = performance.now();
  for (let m = 1; m <= minutes; m++) {
    await new Promise((resolve) => setTimeout(resolve, began + m * 60_000 - performance.now()));
    minute.rssMb = await rssMb(s.pid);
    if (store.dataDir !== undefined) minute.sizes = snapshotSizes(store.dataDir);
    minute.maintained = store.maintained.splice(0);
    minutesDone.push(minute);
    console.error(`minute ${m}: rss ${minute.rssMb.toFixed(1)} MB, failed ${minute.failed}`);
    minute = fresh();
  }
  timers.forEach(clearInterval);
  await Promise.all(pending);
  if (firstError) console.error(`first failure: ${firstError}`);
  return minutesDone;
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(2);

function print(
  store: string,
  rows: Minute[],
  names?: Awaited<ReturnType<typeof relationNames>>,
): void {
  const f = (ms: number | undefined) => ms === undefined ? "-" : ms.toFixed(2);
  const bySize = rows.map((r) => r.sizes && names ? sizesByTable(r.sizes, names) : undefined);
  console.log(
    `\nSoak on ${store}: per minute (added = execute − the provider's ${PROVIDER_DELAY_MS} ms)`,
  );
  console.log(
    "| minute | turns | streams | previews | reads | deleted | failed | skipped | added p50 ms | added p99 ms | RSS MB | tables MB | indexes MB | maintained | longest ms |",
  );
  console.log("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  rows.forEach((r, i) => {
    const sorted = [...r.added].sort((a, b) => a - b);
    const sizes = bySize[i] ? [...bySize[i].values()] : undefined;
    const sum = (kind: "table" | "index") =>
      sizes ? mb(sizes.reduce((n, s) => n + s[kind], 0)) : "-";
    const longest = r.maintained.length === 0
      ? "-"
      : Math.max(...r.maintained.map((m) => m.ms)).toFixed(1);
    console.log(
      `| ${
        i + 1
      } | ${r.done.turn} | ${r.done.stream} | ${r.done.preview} | ${r.done.read} | ${r.deleted} | ${r.failed} | ${r.skipped} | ${
        f(percentile(sorted, 50))
      } | ${f(percentile(sorted, 99))} | ${r.rssMb.toFixed(1)} | ${sum("table")} | ${
        sum("index")
      } | ${r.maintained.length} | ${longest} |`,
    );
  });
  const last = bySize.at(-1);
  if (last) {
    // The tables largest at the end, table + indexes per minute.
    const big = [...last.entries()].sort((a, b) =>
      b[1].table + b[1].index - a[1].table - a[1].index
    ).slice(0, 6).map(([name]) => name);
    console.log(`\nLargest tables, table + indexes MB at each minute's end`);
    console.log(`| minute | ${big.join(" | ")} |`);
    console.log(`|---:|${big.map(() => "---:").join("|")}|`);
    bySize.forEach((sizes, i) => {
      const cell = (name: string) => {
        const s = sizes?.get(name);
        return s ? mb(s.table + s.index) : "-";
      };
      console.log(`| ${i + 1} | ${big.map(cell).join(" | ")} |`);
    });
    const all = rows.flatMap((r) => r.maintained);
    const longest = all.reduce((a, m) => m.ms > a.ms ? m : a, { table: "-", kind: "-", ms: 0 });
    console.log(
      `\nThe store maintained ${all.length} times; the longest held the store ${
        longest.ms.toFixed(1)
      } ms (${longest.kind} ${longest.table})`,
    );
  }
  const warm = rows[0].rssMb;
  const end = rows.at(-1)!.rssMb;
  const growth = (end - warm) / warm * 100;
  console.log(
    `\nRSS after minute 1: ${warm.toFixed(1)} MB; at the end: ${end.toFixed(1)} MB; growth ${
      growth.toFixed(1)
    } % (${growth < 10 ? "flat: under 10 %" : "NOT flat: 10 % or more"})`,
  );
}

/** The store's maintenance, from the service's log lines. */
function maintenanceLog(into: Minute["maintained"]): (line: string) => void {
  return (line) => {
    if (!line.includes('"msg":"store maintained"')) return;
    const { table, kind, ms } = JSON.parse(line);
    into.push({ table, kind, ms });
  };
}

const minutes = Number(arg("minutes", "10"));
const store = arg("store", "pglite");
const load = Number(arg("load", "1"));
if (!(load > 0)) throw new Error("--load: expected a positive number");
if (!Number.isInteger(minutes) || minutes < 1) {
  throw new Error("--minutes: expected an integer ≥ 1");
}
if (store !== "pglite" && store !== "postgres") throw new Error("--store: pglite or postgres");
if (store === "postgres" && !process.env.DATABASE_URL) {
  throw new Error("--store postgres needs DATABASE_URL");
}

const cleanup: (() => Promise<void>)[] = [];
try {
  let service: TurnService;
  let dataDir: string | undefined;
  const maintained: Minute["maintained"] = [];
  if (store === "postgres") {
    const scratch = await createScratchDatabase(process.env.DATABASE_URL!);
    cleanup.push(() => scratch.drop());
    service = await startTurnService(scratch.url);
  } else {
    const dir = await mkdtemp(join(tmpdir(), "switchyard-soak-"));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    dataDir = join(dir, "data");
    service = await startTurnService(
      undefined,
      [],
      { ROUTER_STORAGE_PATH: dataDir },
      maintenanceLog(maintained),
    );
  }
  let closed = false;
  cleanup.unshift(async () => {
    if (!closed) await service.close();
  });
  const rows = await soak(service, minutes, load, { dataDir, maintained });
  await service.close();
  closed = true;
  print(
    store === "postgres" ? "PostgreSQL" : "PGlite (data directory)",
    rows,
    dataDir === undefined ? undefined : await relationNames(dataDir),
  );
} finally {
  for (const c of cleanup) await c();
}
