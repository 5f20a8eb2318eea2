/**
 * The sessions list at its bound (decisions.md §2): `GET /api/v1/sessions`
 * returns every session of the caller whole, so a session's `title` and
 * `scope` are bounded at 1,000 characters. One user with 1,600 sessions at
 * that bound (title and scope of 1,000 characters each) on the embedded store
 * (PGlite in a fresh data directory, as `deno task start` runs it), then 50
 * lists at once. The peer in the same run: the same burst for a user with as
 * many sessions of 10-character titles and scopes, so the ratio says what the
 * bound's worst case costs over an ordinary list. Target: the 50 lists under 2 s.
 *
 * deno task bench:lists  (or: deno run --allow-all bench/sessions_list_burst.ts)
 * SESSIONS=1600 LISTS=50 to change the sizes.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { spread } from "./measure.ts";
import { postJson, signedIn, startService } from "./service_process.ts";

const SESSIONS = Number(process.env.SESSIONS ?? 1600);
const LISTS = Number(process.env.LISTS ?? 50);
const TEXT = 1000;
/** Sessions created at once while seeding: enough to be quick, few enough not to be the test. */
const SEEDING = 16;

interface Burst {
  label: string;
  sessions: number;
  lists: number;
  bodyBytes: number;
  wallMs: number;
  p50: number;
  p99: number;
  rssBeforeMb: number;
  peakRssMb: number;
}

/** VmRSS and VmHWM (the peak) of a process, in MB. */
function memoryMb(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)![1]);
  return { rss: kb("VmRSS") / 1024, hwm: kb("VmHWM") / 1024 };
}

/** Starts the peak over from now (Linux: writing 5 to clear_refs resets VmHWM to VmRSS). */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

/** A string of `n` characters, distinct per session so nothing compresses or dedupes by chance. */
const text = (i: number, kind: string, n: number) => `${kind} ${i} `.padEnd(n, "abcdefghij");

async function burst(label: string, length: number): Promise<Burst> {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-lists-"));
  const service = await startService({ ROUTER_STORAGE_PATH: join(dir, "data") });
  try {
    const url = service.url;
    const auth = await signedIn(url);
    let next = 0;
    await Promise.all(Array.from({ length: SEEDING }, async () => {
      while (next < SESSIONS) {
        const i = next++;
        await postJson(url, "/api/v1/sessions", auth, {
          title: text(i, "title", length),
          scope: text(i, "scope", length),
        });
      }
    }));
    const list = async () => {
      const started = performance.now();
      const response = await fetch(`${url}/api/v1/sessions`, { headers: auth });
      const body = await response.text();
      if (!response.ok) throw new Error(`GET /api/v1/sessions: ${response.status} ${body}`);
      return { ms: performance.now() - started, body };
    };
    // One list first, unmeasured: the answer's size, and the service's code warmed as a user's
    // first list would have it after the sessions were made.
    const first = await list();
    const count = (JSON.parse(first.body).sessions as unknown[]).length;
    if (count !== SESSIONS) throw new Error(`listed ${count} sessions, expected ${SESSIONS}`);
    const before = memoryMb(service.pid);
    const peakReset = resetPeak(service.pid);
    const started = performance.now();
    const times = (await Promise.all(Array.from({ length: LISTS }, list))).map((r) => r.ms);
    const wallMs = performance.now() - started;
    const after = memoryMb(service.pid);
    return {
      label,
      sessions: SESSIONS,
      lists: LISTS,
      bodyBytes: new TextEncoder().encode(first.body).length,
      wallMs,
      ...spread(times),
      rssBeforeMb: before.rss,
      // Without the reset the peak is the process's whole life's (seeding included).
      peakRssMb: peakReset ? after.hwm : Math.max(after.hwm, before.hwm),
    };
  } finally {
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const runtime = process.versions.bun !== undefined ? `Bun ${process.versions.bun}` : "Deno";
const bound = await burst(`${TEXT}-char title+scope`, TEXT);
const peer = await burst("10-char title+scope", 10);

const mb = (n: number) => n.toFixed(1);
const ms = (n: number) => n.toFixed(0);
console.log(`\nsessions list burst (${runtime}, embedded store, one user)\n`);
console.log(
  "| sessions of | sessions | concurrent lists | list body | total wall | p50 per list | p99 per list | RSS before | peak RSS |",
);
console.log("|---|--:|--:|--:|--:|--:|--:|--:|--:|");
for (const b of [bound, peer]) {
  console.log(
    `| ${b.label} | ${b.sessions} | ${b.lists} | ${mb(b.bodyBytes / 1e6)} MB | ${
      ms(b.wallMs)
    } ms | ${ms(b.p50)} ms | ${ms(b.p99)} ms | ${mb(b.rssBeforeMb)} MB | ${mb(b.peakRssMb)} MB |`,
  );
}
console.log(
  `\nat the bound / peer: wall ${(bound.wallMs / peer.wallMs).toFixed(1)}x, p99 ${
    (bound.p99 / peer.p99).toFixed(1)
  }x, peak RSS over before ${mb(bound.peakRssMb - bound.rssBeforeMb)} MB vs ${
    mb(peer.peakRssMb - peer.rssBeforeMb)
  } MB`,
);
console.log(
  `target: ${LISTS} lists of ${SESSIONS} sessions at the bound under 2 s: ${
    bound.wallMs < 2000 ? "met" : "NOT met"
  } (${ms(bound.wallMs)} ms)`,
);
