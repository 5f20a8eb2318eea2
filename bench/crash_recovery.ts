/**
 * Back after a PostgreSQL crash: `deno task bench:crash` (or `bun
 * bench/crash_recovery.ts`). A private PostgreSQL cluster, the service on it in
 * a process of its own (so what crashes is the database, never the service),
 * the fake Chat Completions server in another, and N sessions each running
 * turns back to back. Each round stops the server in immediate mode mid-load,
 * starts it again after a pause, and times, for every session, from the moment
 * the server answers a query again to that session's first completed turn.
 * Afterwards every acknowledged turn (answered 200 `completed`) must be in its
 * session: its user message followed by the answer.
 *
 * Options: --rounds=N (3), --sessions=N (32), --down-ms=N (1000, the pause
 * before the restart), --retry-ms=N (10, a client's wait after a refused
 * turn), --log (print what the service logged, other than requests, during
 * each round, and the slowest sessions' requests with their Server-Timing;
 * the server logs its connections, and its log is kept as
 * /tmp/switchyard-crash-bench.log). The `turn p50 before` column is the floor:
 * how long a turn took under the same load just before the crash.
 */
import { copyFileSync } from "node:fs";
import process from "node:process";
import postgres from "postgres";
import { percentile } from "./measure.ts";
import { startProviderProcess } from "./peers/provider_process.ts";
import { startServiceClient, TURN_BODY } from "./turn_http.ts";
import {
  createPrivateCluster,
  privateClusterPossible,
  whenAccepting,
} from "../tests/support/private_cluster.ts";

const option = (name: string, fallback: number): number => {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg === undefined ? fallback : Number(arg.slice(name.length + 3));
};
const ROUNDS = option("rounds", 3);
const SESSIONS = option("sessions", 32);
const DOWN_MS = option("down-ms", 1_000);
const RETRY_MS = option("retry-ms", 10);
const LOG = process.argv.includes("--log");
/** Load runs this long before each crash, so every session is mid-turn or about to be. */
const WARM_MS = 1_500;
/** A round fails when a session has taken no turn this long after the server's return. */
const GIVE_UP_MS = 20_000;
/** The provider's answer time: a turn spends most of its time outside the service. */
const PROVIDER_DELAY_MS = 20;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Answer {
  /** When the answer arrived (performance.now()). */
  at: number;
  /** When its request was sent. */
  sent: number;
  session: number;
  /** `200 completed`, `502 storage_error`, `fetch failed`, ... */
  kind: string;
  /** The answer's Server-Timing header (its phases), with --log. */
  timing?: string;
}

interface RoundFigures {
  /** Per session, ms from the server's return to its first completed turn. */
  back: number[];
  /** Sessions whose turn in flight at the crash did not complete. */
  cut: number;
  /** How requests were answered from the crash until every session was back. */
  answers: Map<string, number>;
  /** Turns completed in the second before the crash (the load was running). */
  before: number;
  /** The median time of those turns, sent to answered: the floor of any session's return. */
  turnBefore: number;
}

if (!privateClusterPossible()) {
  console.log("bench:crash needs Linux, root and PostgreSQL's programs (/usr/lib/postgresql)");
  process.exit(1);
}

const cluster = await createPrivateCluster(
  LOG ? { settings: { log_connections: "on", log_line_prefix: "'%m [%p] '" } } : {},
);
await cluster.start();
const provider = await startProviderProcess();
await provider.setPace({ delayMs: PROVIDER_DELAY_MS });
const logged: string[] = [];
const service = await startServiceClient(
  provider.url,
  cluster.url,
  [],
  {},
  (line) => {
    if (LOG && !line.includes('"msg":"request"')) logged.push(line);
  },
);

const sessions: string[] = [];
for (let i = 0; i < SESSIONS; i++) sessions.push(await service.newSession());
const acknowledged: string[][] = sessions.map(() => []);
const answers: Answer[] = [];
let running = true;

const loops = sessions.map(async (id, i) => {
  for (let n = 0; running; n++) {
    // A text of its own per attempt: an acknowledged turn is found again by it.
    const text = `turn ${i}.${n}`;
    const body = JSON.stringify({ ...TURN_BODY, input: { text: `please fix ${text}` } });
    const sent = performance.now();
    let kind: string;
    let timing: string | undefined;
    try {
      const r = await fetch(`${service.url}${service.executePath(id)}`, {
        method: "POST",
        headers: service.headers,
        body,
      });
      const json = await r.json().catch(() => null);
      kind = r.status === 200
        ? `200 ${json?.status ?? ""}`
        : `${r.status} ${json?.error?.code ?? ""}`;
      if (kind === "200 completed") acknowledged[i].push(`please fix ${text}`);
      if (LOG) timing = r.headers.get("server-timing") ?? undefined;
      if (LOG && r.status === 200 && json?.status !== "completed") {
        console.log(`session ${i} answered 200 but not completed: ${JSON.stringify(json)}`);
      }
    } catch {
      kind = "fetch failed";
    }
    answers.push({ at: performance.now(), sent, session: i, kind, timing });
    if (kind !== "200 completed") await sleep(RETRY_MS);
  }
});

/** Per session, ms from `since` to the first completed turn answered after it; waits for all. */
async function allBack(since: number): Promise<number[]> {
  const firsts: (number | undefined)[] = sessions.map(() => undefined);
  for (let seen = 0;;) {
    for (; seen < answers.length; seen++) {
      const a = answers[seen];
      if (a.at >= since && a.kind === "200 completed") firsts[a.session] ??= a.at - since;
    }
    if (firsts.every((f) => f !== undefined)) return firsts as number[];
    if (performance.now() - since > GIVE_UP_MS) {
      const stuck = firsts.flatMap((f, i) => f === undefined ? [i] : []);
      throw new Error(
        `sessions ${stuck.join(", ")} took no turn ${GIVE_UP_MS} ms after the server's return; ` +
          `the service's errors:\n${service.recentErrors().join("\n")}`,
      );
    }
    await sleep(5);
  }
}

async function round(): Promise<RoundFigures> {
  await sleep(WARM_MS);
  const crashedAt = performance.now();
  const lastSecond = answers.filter((a) => a.at > crashedAt - 1_000 && a.kind === "200 completed");
  const turnBefore = percentile(lastSecond.map((a) => a.at - a.sent).sort((a, b) => a - b), 50);
  const from = answers.length;
  await cluster.crash();
  await sleep(DOWN_MS);
  await cluster.startNoWait();
  const back = await whenAccepting(cluster.url);
  const figures = await allBack(back);
  const during = answers.slice(from);
  const tally = new Map<string, number>();
  for (const a of during) tally.set(a.kind, (tally.get(a.kind) ?? 0) + 1);
  // A session's turn was cut when its request sent before the crash was not completed.
  const cut = new Set(
    during.filter((a) => a.sent < crashedAt && a.kind !== "200 completed").map((a) => a.session),
  );
  if (LOG) {
    // Each line's own time, from the server's return (the service's clock is this machine's).
    const backAt = performance.timeOrigin + back;
    for (const line of logged.splice(0)) {
      const at = Date.parse(JSON.parse(line).time ?? "") - backAt;
      console.log(`${Number.isNaN(at) ? "" : at.toFixed(0).padStart(7)} ms  ${line}`);
    }
    // The slowest sessions' requests from the crash on: sent → answered, from the server's return.
    const slowest = figures.map((f, i) => [f, i]).sort((a, b) => b[0] - a[0]).slice(0, 3);
    for (const [f, i] of slowest) {
      const seen = during.filter((a) => a.session === i && a.at <= back + f + 1)
        .map((a) =>
          `${Math.round(a.sent - back)}→${Math.round(a.at - back)} ${a.kind} ${a.timing ?? ""}`
        );
      console.log(`session ${i} back after ${Math.round(f)} ms: ${seen.join(", ")}`);
    }
  }
  return { back: figures, cut: cut.size, answers: tally, before: lastSecond.length, turnBefore };
}

/** Acknowledged turns whose user message is not followed by an assistant message in its session. */
async function lostTurns(): Promise<number> {
  const sql = postgres(cluster.url, { max: 1, onnotice: () => {} });
  try {
    let lost = 0;
    for (const [i, id] of sessions.entries()) {
      const rows = await sql<{ role: string; text: string | null }[]>`
        SELECT role, content ->> 'plaintext' AS text FROM messages
        WHERE session_id = ${id} ORDER BY seq`;
      const answered = new Set<string>();
      for (let k = 0; k + 1 < rows.length; k++) {
        if (rows[k].role === "user" && rows[k + 1].role === "assistant" && rows[k].text) {
          answered.add(rows[k].text!);
        }
      }
      lost += acknowledged[i].filter((text) => !answered.has(text)).length;
    }
    return lost;
  } finally {
    await sql.end();
  }
}

const rounds: RoundFigures[] = [];
try {
  for (let r = 0; r < ROUNDS; r++) rounds.push(await round());
} finally {
  running = false;
  await Promise.all(loops);
}
const lost = await lostTurns();
await service.close();
await provider.stop();
if (LOG) copyFileSync(cluster.log, "/tmp/switchyard-crash-bench.log");
await cluster.remove();

const ms = (x: number) => `${Math.round(x)}`;
const runtime = process.versions.bun
  ? `Bun ${process.versions.bun}`
  : `Deno ${process.versions.deno}`;
console.log(
  `\nBack after a PostgreSQL crash (${runtime}; ${SESSIONS} sessions running turns, provider ` +
    `${PROVIDER_DELAY_MS} ms; immediate stop, restart after ${DOWN_MS} ms; clients retry ` +
    `${RETRY_MS} ms after a refusal): ms from the server answering again to each session's ` +
    `first completed turn`,
);
console.log(
  "| round | turns/s before | turn p50 before, ms | cut sessions | p50 ms | p90 ms | max ms |",
);
console.log("|---:|---:|---:|---:|---:|---:|---:|");
const all: number[] = [];
for (const [r, f] of rounds.entries()) {
  const sorted = [...f.back].sort((a, b) => a - b);
  all.push(...sorted);
  console.log(
    `| ${r + 1} | ${f.before} | ${ms(f.turnBefore)} | ${f.cut} | ${ms(percentile(sorted, 50))} | ` +
      `${ms(percentile(sorted, 90))} | ${ms(sorted[sorted.length - 1])} |`,
  );
}
all.sort((a, b) => a - b);
console.log(
  `| all ${rounds.length} | | | ${rounds.reduce((n, f) => n + f.cut, 0)} | ` +
    `${ms(percentile(all, 50))} | ${ms(percentile(all, 90))} | ${ms(all[all.length - 1])} |`,
);
console.log(
  `\nAcknowledged turns: ${acknowledged.flat().length}, lost: ${lost}`,
);
console.log("\nAnswers from each crash until every session was back");
console.log(`| answer | ${rounds.map((_, r) => `round ${r + 1}`).join(" | ")} |`);
console.log(`|---|${rounds.map(() => "---:").join("|")}|`);
const kinds = [...new Set(rounds.flatMap((f) => [...f.answers.keys()]))].sort();
for (const kind of kinds) {
  console.log(`| ${kind} | ${rounds.map((f) => f.answers.get(kind) ?? 0).join(" | ")} |`);
}
if (lost > 0) process.exitCode = 1;
