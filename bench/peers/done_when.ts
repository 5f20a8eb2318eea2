/** The service's targets, each a ratio to Portkey in this run or a bound, against what it measured. */
import { ms, printTable, ratio, verdict, whole } from "./report.ts";
import type { Bench, Memory, Results } from "./context.ts";

/** Each store's ratios to Portkey in the same run. */
const TARGETS = {
  pglite: { addedP50: 2.5, turnsPerSecond: 0.7, frameP99: 1.5 },
  postgres: { addedP50: 2.0, turnsPerSecond: 0.8, frameP99: 1.5 },
} as const;
const storeOf = (store: string) => store === "PGlite" ? "pglite" : "postgres";

export function printDoneWhen(
  b: Bench,
  r: Results,
  memory: Memory,
  decisionP99: number | undefined,
): void {
  const pk = b.portkey.name;
  const f = (v: number | undefined, unit = "ms") => (ms(v) === "—" ? "—" : `${ms(v)} ${unit}`);
  const rows: string[][] = [];
  const add = (
    target: string,
    store: string,
    measured: string,
    ok: boolean | undefined,
  ) => rows.push([target, store, measured, verdict(ok)]);
  const pkAdded = r.added.get(pk);
  const rps = (name: string, clients: number) => r.throughput.get(`${name}@${clients}`)?.perSecond;
  for (const s of b.services) {
    const added = r.added.get(s.target.name);
    const p50Factor = TARGETS[storeOf(s.store)].addedP50;
    add(
      `added latency at concurrency 1, p50 ≤ ${p50Factor} × Portkey's (${f(pkAdded?.p50)})`,
      s.store,
      `${f(added?.p50)} (${ratio(added?.p50, pkAdded?.p50)})`,
      added && pkAdded && added.p50 <= p50Factor * pkAdded.p50,
    );
    add(
      `added latency at concurrency 1, p99 ≤ Portkey's (${f(pkAdded?.p99)})`,
      s.store,
      `${f(added?.p99)} (${ratio(added?.p99, pkAdded?.p99)})`,
      added && pkAdded && added.p99 <= pkAdded.p99,
    );
  }
  for (const clients of [32, 64]) {
    const theirs = rps(pk, clients);
    for (const s of b.services) {
      const factor = TARGETS[storeOf(s.store)].turnsPerSecond;
      const ours = rps(s.target.name, clients);
      add(
        `turns/s at ${clients} clients, 20 ms provider ≥ ${factor} × Portkey's (${
          whole(theirs)
        }/s)`,
        s.store,
        ours === undefined ? "—" : `${whole(ours)}/s (${ratio(ours, theirs)})`,
        ours === undefined || theirs === undefined ? undefined : ours >= factor * theirs,
      );
    }
  }
  for (const s of b.services.filter((x) => x.store === "PostgreSQL")) {
    for (const clients of [32, 64]) {
      const ours = r.throughput.get(`${s.target.name}@${clients}`)?.cpuMsPerRequest;
      const theirs = r.throughput.get(`${pk}@${clients}`)?.cpuMsPerRequest;
      add(
        `the service's CPU per turn at ${clients} clients ≤ Portkey's (${f(theirs)})`,
        s.store,
        `${f(ours)} (${ratio(ours, theirs)})`,
        ours === undefined || theirs === undefined ? undefined : ours <= theirs,
      );
    }
    const at64 = r.throughput.get(`${s.target.name}@64`);
    rows.push([
      "the database's CPU per turn at 64 clients",
      s.store,
      f(at64?.databaseCpuMsPerRequest),
      at64 ? "printed" : "not measured",
    ]);
  }
  const floor512 = r.streams.get(`${b.direct.name}@512`);
  const portkey512 = r.streams.get(`${pk}@512`);
  for (const s of b.services) {
    const at512 = r.streams.get(`${s.target.name}@512`);
    const frameFactor = TARGETS[storeOf(s.store)].frameP99;
    add(
      `512 concurrent streams stall-free, per-frame delay p99 (one clock) ≤ ${frameFactor} × Portkey's (${
        f(portkey512?.frameDelayP99)
      })`,
      s.store,
      at512
        ? `${at512.stallFree}/512, ${f(at512.frameDelayP99)} (${
          ratio(at512.frameDelayP99, portkey512?.frameDelayP99)
        }` + (floor512 ? `; the provider read directly: ${f(floor512.frameDelayP99)})` : ")")
        : "—",
      // Where Portkey's own streams stall, the machine is too slow for all 512: as many as Portkey.
      at512 && portkey512 &&
        (at512.stallFree === 512 || at512.stallFree >= portkey512.stallFree) &&
        at512.frameDelayP99 <= frameFactor * portkey512.frameDelayP99,
    );
    const at1024 = r.streams.get(`${s.target.name}@1024`);
    rows.push([
      "1,024 concurrent streams reported",
      s.store,
      at1024 ? `${at1024.stallFree}/1024 stall-free, ${f(at1024.frameDelayP99)}` : "—",
      at1024 ? "reported" : "not measured",
    ]);
  }
  for (const s of b.services) {
    const perSecond = r.preview.get(`${s.target.name}@32`);
    add(
      "preview ≥ 3,000 requests/s at 32 clients",
      s.store,
      perSecond === undefined ? "—" : `${whole(perSecond)}/s`,
      perSecond === undefined ? undefined : perSecond >= 3000,
    );
  }
  for (const s of b.services) {
    const buckets = r.depth.get(s.target.name);
    const [first, last] = [buckets?.[0], buckets?.at(-1)];
    // Verdict on what the service adds, compared at the same moment (the machine's drift does not
    // move it); the provider's own time on a 400-message prompt is not the service's.
    const growth = last && last.added.p50 / last.freshAdded.p50;
    add(
      "added turn latency (p50) at depth 150–199 within 20% of depth 0 (a fresh session, same moment)",
      s.store,
      first && last && growth
        ? `${growth.toFixed(2)}× (whole turn: ${
          ratio(last.turn.p50, last.fresh.p50)
        }; raw added 150–199 / 0–9: ${ratio(last.added.p50, first.added.p50)})`
        : "—",
      growth === undefined ? undefined : growth <= 1.2,
    );
  }
  const pkLoaded = memory.loaded.get(pk);
  for (const s of b.services) {
    const limit = s.store === "PGlite" ? 200 : 100;
    const idle = memory.idle.get(s.target.name);
    add(
      `idle RSS ≤ ${limit} MB`,
      s.store,
      f(idle, "MB"),
      idle === undefined ? undefined : idle <= limit,
    );
    const loaded = memory.loaded.get(s.target.name);
    add(
      `RSS after the load ≤ 2.5 × Portkey's (${f(pkLoaded, "MB")})`,
      s.store,
      `${f(loaded, "MB")} (${ratio(loaded, pkLoaded)})`,
      loaded === undefined || pkLoaded === undefined ? undefined : loaded <= 2.5 * pkLoaded,
    );
  }
  add(
    "routing decision p99 ≤ 0.5 ms (bench/decision.ts, in the generator's process)",
    "—",
    f(decisionP99),
    decisionP99 === undefined ? undefined : decisionP99 <= 0.5,
  );
  rows.push(["CI is green", "—", "not measured here", "see .ci/run"]);
  printTable("7. Targets", [
    "target",
    "store",
    "measured",
    "verdict",
  ], rows);
}
