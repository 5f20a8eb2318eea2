/**
 * The service's targets, each a ratio to Portkey in the same run or a bound,
 * against what it measured: with several runs, the median run's figure (the
 * verdict is the median's) and every run's figure in run order.
 */
import { ms, printTable, ratio, verdict, whole } from "./report.ts";
import { type Bench, by, type Memory, type Results } from "./context.ts";

/** Each store's ratios to Portkey in the same run. */
const TARGETS = {
  pglite: { addedP50: 2.5, turnsPerSecond: 0.7, frameP99: 1.5 },
  postgres: { addedP50: 2.0, turnsPerSecond: 0.8, frameP99: 1.5 },
} as const;
const storeOf = (store: string) => store === "PGlite" ? "pglite" : "postgres";
/** The share of the added p50 the phases must account for at concurrency 1. */
const COVERAGE = 0.9;
/** A compatible turn's cost bound against the one it is compared with. */
const COMPAT = 1.1;

/** One run's figure for a target: `key` orders the runs (the median is taken on it). */
interface Figure {
  key: number | undefined;
  /** The whole cell for this run. */
  text: string;
  /** The key, short, for the list of every run's figure. */
  short: string;
  ok: boolean | undefined;
}

const NONE: Figure = { key: undefined, text: "—", short: "—", ok: undefined };
const x = (
  v: number | undefined,
) => (v === undefined || Number.isNaN(v) ? "—" : `${v.toFixed(2)}×`);
const f = (v: number | undefined, unit = "ms") => (ms(v) === "—" ? "—" : `${ms(v)} ${unit}`);

/** The median run's figure (the lower middle of an even count), and every run's, in order. */
function median(figures: Figure[]): { text: string; ok: boolean | undefined } {
  const measured = figures.filter((g) => g.key !== undefined && !Number.isNaN(g.key));
  if (measured.length === 0) return { text: "—", ok: undefined };
  const sorted = [...measured].sort((a, b) => a.key! - b.key!);
  const middle = sorted[Math.floor((sorted.length - 1) / 2)];
  if (figures.length === 1) return { text: middle.text, ok: middle.ok };
  return {
    text: `median ${middle.text} (runs: ${figures.map((g) => g.short).join(" / ")})`,
    ok: middle.ok,
  };
}

export function printDoneWhen(
  b: Bench,
  runs: Results[],
  memory: Memory,
  decisionP99: number | undefined,
): void {
  const pk = b.portkey.name;
  const primary = b.options.clients[0];
  const rows: string[][] = [];
  const add = (target: string, store: string, client: string, per: (r: Results) => Figure) => {
    const m = median(runs.map(per));
    rows.push([target, store, client, m.text, verdict(m.ok)]);
  };
  for (const client of b.options.clients) {
    for (const s of b.services) {
      const p50Factor = TARGETS[storeOf(s.store)].addedP50;
      // Added latency at concurrency 1, ours against Portkey's at one percentile.
      const addedAt = (q: "p50" | "p99", bound: number) => (r: Results): Figure => {
        const added = r.added.get(by(client, s.target.name));
        const theirs = r.added.get(by(client, pk));
        if (!added || !theirs) return NONE;
        const k = added[q] / theirs[q];
        return {
          key: k,
          text: `${f(added[q])} vs ${f(theirs[q])} (${x(k)})`,
          short: x(k),
          ok: k <= bound,
        };
      };
      add(
        `added latency at concurrency 1, p50 ≤ ${p50Factor} × Portkey's`,
        s.store,
        client,
        addedAt("p50", p50Factor),
      );
      add(`added latency at concurrency 1, p99 ≤ Portkey's`, s.store, client, addedAt("p99", 1));
      add(
        `Server-Timing phases account for ≥ ${
          COVERAGE * 100
        } % of the added latency at concurrency 1 (median over requests of (the service's phases + the provider phases' excess over the direct request) / added; beside: the service's own phases alone, per request and as p50s)`,
        s.store,
        client,
        (r) => {
          const c = r.coverage.get(by(client, s.target.name));
          if (!c) return NONE;
          const pct = (v: number) => `${(v * 100).toFixed(0)} %`;
          return {
            key: c.withCallRatio,
            text: `${pct(c.withCallRatio)} (own phases alone: ${pct(c.medianRatio)}; p50s ${
              f(c.ownP50)
            } of ${f(c.addedP50)}, ${pct(c.ownP50 / c.addedP50)})`,
            short: pct(c.withCallRatio),
            ok: c.withCallRatio >= COVERAGE,
          };
        },
      );
    }
    for (const clients of b.options.throughputClients) {
      for (const s of b.services) {
        const factor = TARGETS[storeOf(s.store)].turnsPerSecond;
        add(
          `turns/s at ${clients} clients, 20 ms provider ≥ ${factor} × Portkey's`,
          s.store,
          client,
          (r) => {
            const ours = r.throughput.get(by(client, `${s.target.name}@${clients}`))?.perSecond;
            const theirs = r.throughput.get(by(client, `${pk}@${clients}`))?.perSecond;
            if (ours === undefined || theirs === undefined) return NONE;
            const k = ours / theirs;
            return {
              key: k,
              text: `${whole(ours)}/s vs ${whole(theirs)}/s (${x(k)})`,
              short: x(k),
              ok: k >= factor,
            };
          },
        );
      }
    }
    for (const s of b.services.filter((x) => x.store === "PostgreSQL")) {
      for (const clients of b.options.throughputClients) {
        add(
          `the service's CPU per turn at ${clients} clients ≤ Portkey's`,
          s.store,
          client,
          (r) => {
            const ours = r.throughput.get(by(client, `${s.target.name}@${clients}`))
              ?.cpuMsPerRequest;
            const theirs = r.throughput.get(by(client, `${pk}@${clients}`))?.cpuMsPerRequest;
            if (ours === undefined || theirs === undefined) return NONE;
            const k = ours / theirs;
            return {
              key: k,
              text: `${f(ours)} vs ${f(theirs)} (${x(k)})`,
              short: x(k),
              ok: k <= 1,
            };
          },
        );
      }
    }
  }
  for (const s of b.services.filter((x) => x.store === "PostgreSQL")) {
    const m = median(runs.map((r) => {
      const v = r.throughput.get(by(primary, `${s.target.name}@64`))?.databaseCpuMsPerRequest;
      return v === undefined ? NONE : { key: v, text: f(v), short: ms(v), ok: true };
    }));
    rows.push([
      "the database's CPU per turn at 64 clients",
      s.store,
      primary,
      m.text,
      m.ok ? "printed" : "not measured",
    ]);
  }
  for (const s of b.services) {
    const chat = `Switchyard /v1/chat/completions, ${s.store}`;
    const compat = [
      ["/v1/chat/completions", chat, s.target.name, "native execute"],
      ["/v1/responses", `Switchyard /v1/responses, ${s.store}`, chat, "/v1/chat/completions"],
    ];
    for (const [surface, name, other, otherLabel] of compat) {
      add(
        `${surface}: added p50 at concurrency 1 ≤ ${COMPAT} × ${otherLabel}'s (table 6)`,
        s.store,
        primary,
        (r) => {
          const ours = r.compat.get(name)?.added.p50;
          const theirs = r.compat.get(other)?.added.p50;
          if (ours === undefined || theirs === undefined) return NONE;
          const k = ours / theirs;
          return {
            key: k,
            text: `${f(ours)} vs ${f(theirs)} (${x(k)})`,
            short: x(k),
            ok: k <= COMPAT,
          };
        },
      );
      add(
        `${surface}: turns/s at 32 clients ≥ ${otherLabel}'s / ${COMPAT} (table 6)`,
        s.store,
        primary,
        (r) => {
          const ours = r.compat.get(name)?.perSecond;
          const theirs = r.compat.get(other)?.perSecond;
          if (ours === undefined || theirs === undefined) return NONE;
          const k = theirs / ours;
          return {
            key: k,
            text: `${whole(ours)}/s vs ${whole(theirs)}/s (${otherLabel}/this ${x(k)})`,
            short: x(k),
            ok: k <= COMPAT,
          };
        },
      );
    }
  }
  for (const s of b.services) {
    const frameFactor = TARGETS[storeOf(s.store)].frameP99;
    add(
      `512 concurrent streams stall-free, per-frame delay p99 (one clock) ≤ ${frameFactor} × Portkey's`,
      s.store,
      "deno",
      (r) => {
        const at512 = r.streams.get(`${s.target.name}@512`);
        const portkey512 = r.streams.get(`${pk}@512`);
        const floor512 = r.streams.get(`${b.direct.name}@512`);
        if (!at512 || !portkey512) return NONE;
        const k = at512.frameDelayP99 / portkey512.frameDelayP99;
        return {
          key: k,
          text:
            `${at512.stallFree}/512 (Portkey ${portkey512.stallFree}), ${
              f(at512.frameDelayP99)
            } vs ${f(portkey512.frameDelayP99)} (${x(k)}` +
            (floor512 ? `; the provider read directly: ${f(floor512.frameDelayP99)})` : ")"),
          short: `${x(k)} ${at512.stallFree}/512`,
          // Where Portkey's own streams stall, the machine is too slow for all 512: as many as Portkey.
          ok: (at512.stallFree === 512 || at512.stallFree >= portkey512.stallFree) &&
            k <= frameFactor,
        };
      },
    );
    const m = median(runs.map((r) => {
      const at1024 = r.streams.get(`${s.target.name}@1024`);
      return at1024
        ? {
          key: at1024.frameDelayP99,
          text: `${at1024.stallFree}/1024 stall-free, ${f(at1024.frameDelayP99)}`,
          short: `${at1024.stallFree}/1024`,
          ok: true,
        }
        : NONE;
    }));
    rows.push([
      "1,024 concurrent streams reported",
      s.store,
      "deno",
      m.text,
      m.ok ? "reported" : "not measured",
    ]);
  }
  for (const s of b.services) {
    add("preview ≥ 3,000 requests/s at 32 clients", s.store, "deno", (r) => {
      const perSecond = r.preview.get(`${s.target.name}@32`);
      return perSecond === undefined ? NONE : {
        key: perSecond,
        text: `${whole(perSecond)}/s`,
        short: whole(perSecond),
        ok: perSecond >= 3000,
      };
    });
  }
  for (const s of b.services) {
    // Verdict on what the service adds, compared at the same moment (the machine's drift does not
    // move it); the provider's own time on a 400-message prompt is not the service's.
    add(
      "added turn latency (p50) at depth 150–199 within 20% of depth 0 (a fresh session, same moment)",
      s.store,
      "deno",
      (r) => {
        const buckets = r.depth.get(s.target.name);
        const [first, last] = [buckets?.[0], buckets?.at(-1)];
        if (!first || !last) return NONE;
        const growth = last.added.p50 / last.freshAdded.p50;
        return {
          key: growth,
          text: `${growth.toFixed(2)}× (whole turn: ${
            ratio(last.turn.p50, last.fresh.p50)
          }; raw added 150–199 / 0–9: ${ratio(last.added.p50, first.added.p50)})`,
          short: x(growth),
          ok: growth <= 1.2,
        };
      },
    );
  }
  const pkLoaded = memory.loaded.get(pk);
  const once = (target: string, store: string, measured: string, ok: boolean | undefined) =>
    rows.push([target, store, "—", measured, verdict(ok)]);
  for (const s of b.services) {
    const limit = s.store === "PGlite" ? 200 : 100;
    const idle = memory.idle.get(s.target.name);
    once(
      `idle RSS ≤ ${limit} MB (once, before the first run)`,
      s.store,
      f(idle, "MB"),
      idle === undefined ? undefined : idle <= limit,
    );
    const loaded = memory.loaded.get(s.target.name);
    once(
      `RSS after the load ≤ 2.5 × Portkey's (${f(pkLoaded, "MB")}; peak over all runs)`,
      s.store,
      `${f(loaded, "MB")} (${ratio(loaded, pkLoaded)})`,
      loaded === undefined || pkLoaded === undefined ? undefined : loaded <= 2.5 * pkLoaded,
    );
  }
  once(
    "routing decision p99 ≤ 0.5 ms (bench/decision.ts, in the generator's process)",
    "—",
    f(decisionP99),
    decisionP99 === undefined ? undefined : decisionP99 <= 0.5,
  );
  rows.push(["CI is green", "—", "—", "not measured here", "see .ci/run"]);
  printTable(
    `7. Targets${
      runs.length > 1 ? `, over ${runs.length} runs: the median run's figure and each run's` : ""
    } (client: the load generator that measured the row)`,
    ["target", "store", "client", "measured", "verdict"],
    rows,
  );
}
