/** Issue 10's "Done when" list, each target against what this run measured. */
import { ms, printTable, ratio, verdict, whole } from "./report.ts";
import type { Bench, Memory, Results } from "./context.ts";

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
    const name = s.target.name;
    const added = r.added.get(name);
    add(
      "added latency per turn at concurrency 1, p50 ≤ 2 ms",
      s.store,
      f(added?.p50),
      added && added.p50 <= 2,
    );
    add(
      `added p99 ≤ Portkey's added p99 (${f(pkAdded?.p99)})`,
      s.store,
      f(added?.p99),
      added && pkAdded && added.p99 <= pkAdded.p99,
    );
  }
  for (
    const [clients, factor, stores] of [[32, 1, "PostgreSQL"], [
      32,
      0.6,
      "PGlite",
    ], [64, 1.3, "PostgreSQL"]] as const
  ) {
    const s = b.services.find((x) => x.store === stores);
    if (!s) continue;
    const ours = rps(s.target.name, clients);
    const theirs = rps(pk, clients);
    add(
      `turns/s at ${clients} clients, 20 ms provider ≥ ${factor} × Portkey's (${whole(theirs)}/s)`,
      s.store,
      ours === undefined ? "—" : `${whole(ours)}/s (${ratio(ours, theirs)})`,
      ours === undefined || theirs === undefined ? undefined : ours >= factor * theirs,
    );
  }
  const floor512 = r.streams.get(`${b.direct.name}@512`);
  for (const s of b.services) {
    const at512 = r.streams.get(`${s.target.name}@512`);
    add(
      "512 concurrent streams all stall-free, added per-frame p99 ≤ 10 ms",
      s.store,
      at512
        ? `${at512.stallFree}/512, ${f(at512.addedGapP99)}` +
          (floor512 ? ` (the provider read directly: ${f(floor512.addedGapP99)})` : "")
        : "—",
      at512 && at512.stallFree === 512 && at512.addedGapP99 <= 10,
    );
    const at1024 = r.streams.get(`${s.target.name}@1024`);
    rows.push([
      "1,024 concurrent streams reported",
      s.store,
      at1024 ? `${at1024.stallFree}/1024 stall-free, ${f(at1024.addedGapP99)}` : "—",
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
  for (const s of b.services) {
    const limit = s.store === "PGlite" ? 150 : 100;
    const idle = memory.idle.get(s.target.name);
    add(
      `idle RSS ≤ ${limit} MB`,
      s.store,
      f(idle, "MB"),
      idle === undefined ? undefined : idle <= limit,
    );
  }
  add(
    "routing decision p99 ≤ 0.5 ms (bench/decision.ts, in the generator's process)",
    "—",
    f(decisionP99),
    decisionP99 === undefined ? undefined : decisionP99 <= 0.5,
  );
  rows.push(["CI is green", "—", "not measured here", "see .ci/run"]);
  printTable('7. Issue 10 "Done when"', [
    "target",
    "store",
    "measured",
    "verdict",
  ], rows);
}
