/**
 * `deno task bench:peers`: the service side by side with Portkey, the gateway
 * most people would pick instead, both calling the same fake Chat Completions
 * server (a process of its own). Each target runs in its own process on a free
 * port (the service started with the README's own command under Deno); the
 * load generator is this process. Prints markdown tables with the ratio
 * ours/Portkey, where the service's turns wait (its own phase histogram, beside
 * the machine's synced-commit time), then the targets with pass/fail.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "node:net";
import process from "node:process";
import { createScratchDatabase } from "../../tests/support/databases.ts";
import { runDecisionBench } from "../decision.ts";
import { startServiceClient } from "../turn_http.ts";
import { README_START } from "../service_process.ts";
import { printDoneWhen } from "./done_when.ts";
import { readOptions, type Section } from "./options.ts";
import { installPeers, nodeVersion, portkeyVersion, startPortkey } from "./portkey.ts";
import { rssMb, sampleRss } from "./proc.ts";
import { startProviderProcess } from "./provider_process.ts";
import { type Bench, type Memory, newResults, type Results, type Service } from "./context.ts";
import { BENCH_OPERATOR_TOKEN, budgetSection } from "./budget_section.ts";
import { compatSection } from "./compat_section.ts";
import { depthSection, latencySection, previewSection } from "./latency_sections.ts";
import {
  printClients,
  printCoverage,
  printMemory,
  printPhases,
  streamsSection,
  throughputSection,
} from "./load_sections.ts";
import { diskSyncFloor, postgresCommitFloor } from "./commit_floor.ts";
import { loadClient, readNodeVersion } from "./load_client.ts";
import { directTarget, portkeyTarget, serviceTarget } from "./targets.ts";

/** About a turn's time in the service at concurrency 1: the client and the provider both idle meanwhile. */
const HOLD_MS = 3;

const LOCAL_POSTGRES = "postgres://postgres@127.0.0.1:5432/postgres";
/** Idle memory is read this long after the service answered and a user signed in. */
const SETTLE_MS = 1000;

/** DATABASE_URL, else the local server when 127.0.0.1:5432 answers, else none. */
function postgresUrl(): Promise<string | undefined> {
  if (process.env.DATABASE_URL) return Promise.resolve(process.env.DATABASE_URL);
  return new Promise((resolve) => {
    const socket = connect(5432, "127.0.0.1");
    socket.setTimeout(500);
    const done = (url?: string) => {
      socket.destroy();
      resolve(url);
    };
    socket.once("connect", () => done(LOCAL_POSTGRES));
    socket.once("error", () => done());
    socket.once("timeout", () => done());
  });
}

const skipped = (asked: boolean, url: string | undefined) =>
  !asked
    ? " (PostgreSQL not asked for)"
    : url
    ? ""
    : " (PostgreSQL skipped: no DATABASE_URL and nothing on 127.0.0.1:5432)";
const loadAverage = () => readFileSync("/proc/loadavg", "utf8").split(" ")[0];
const runtime = process.versions.bun
  ? `Bun ${process.versions.bun}`
  : `Deno ${process.versions.deno}`;
const options = readOptions(process.argv.slice(2), process.env);
installPeers();
// The pure decision, measured while this process is fresh: after the load sections its heap holds
// every sample taken, and its collector would be measured along with the decision.
const decisionP99 = Math.max(...runDecisionBench().map((row) => row.p99));
const cleanups: (() => Promise<void>)[] = [];
const services: Service[] = [];
try {
  const provider = await startProviderProcess();
  cleanups.unshift(provider.stop);
  const portkey = await startPortkey();
  cleanups.unshift(portkey.stop);
  const stores: { store: string; url?: string }[] = [];
  if (options.stores.has("pglite")) stores.push({ store: "PGlite" });
  const adminUrl = options.stores.has("postgres") ? await postgresUrl() : undefined;
  if (adminUrl) {
    const scratch = await createScratchDatabase(adminUrl);
    cleanups.push(scratch.drop); // after the service using it stopped
    stores.push({ store: "PostgreSQL", url: scratch.url });
  }
  if (stores.length === 0) throw new Error("no store to measure: PostgreSQL is not reachable");
  for (const { store, url } of stores) {
    // The embedded store as users run it: a data directory on disk, not `memory://`.
    const dataDir = url === undefined ? mkdtempSync(join(tmpdir(), "switchyard-bench-")) : null;
    if (dataDir !== null) {
      cleanups.push(() => Promise.resolve(rmSync(dataDir, { recursive: true, force: true })));
    }
    const env: Record<string, string> = {
      ROUTER_AUTH_OPERATOR_TOKEN: BENCH_OPERATOR_TOKEN,
      ...(dataDir === null ? {} : { ROUTER_STORAGE_PATH: join(dataDir, "data") }),
    };
    const client = await startServiceClient(provider.url, url, [], env, undefined, true);
    cleanups.unshift(client.close);
    const floor = url === undefined
      ? await diskSyncFloor(dataDir!)
      : await postgresCommitFloor(url);
    services.push({ store, client, floor, target: serviceTarget(`Switchyard, ${store}`, client) });
  }
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const pkName = `Portkey ${portkeyVersion()}`;
  const memory: Memory = { idle: new Map([[pkName, rssMb(portkey.pid)]]), loaded: new Map() };
  for (const s of services) memory.idle.set(s.target.name, rssMb(s.client.pid));

  // The Chat Completions body the service sends for TURN_BODY on a fresh session: Portkey and
  // the direct baseline send exactly this.
  const [first] = await services[0].target.conversations(1);
  await services[0].target.buffered(first);
  const body = await provider.lastBody();
  const bench: Bench = {
    options,
    provider,
    direct: directTarget(provider.pid, provider.url, body),
    held: directTarget(provider.pid, provider.url, body, HOLD_MS),
    portkey: portkeyTarget(pkName, portkey.pid, portkey.url, provider.url, body),
    services,
  };
  const loadAtStart = loadAverage();
  console.log(
    `# Switchyard beside ${pkName}${options.quick ? " (quick run)" : ""}${
      options.runs > 1 ? `, ${options.runs} runs` : ""
    }\n`,
  );
  if (options.clients.includes("node")) await readNodeVersion();
  console.log(
    `Load generators: ${
      options.clients.map((c) => `${c}: ${loadClient(c).label}`).join("; ")
    } (the first drives the sections measured with one; the streams, depth and preview sections: ${runtime}, in this process). ` +
      `Fake provider (bench/chat_provider.ts): a ${runtime} process of its own. ` +
      `Portkey: Node.js ${nodeVersion()} (start-server.js --headless). ` +
      `Service: ${
        process.versions.bun ? `${runtime} (src/runtime/bun.ts)` : `\`${README_START.join(" ")}\``
      }, ${services.map((s) => s.store).join(" and ")}` +
      `${skipped(options.stores.has("postgres"), adminUrl)}. ` +
      `All on one machine with ${navigator.hardwareConcurrency} cores.`,
  );

  const has = (s: Section) => options.sections.has(s);
  const pids = [portkey.pid, ...services.map((s) => s.client.pid)];
  const sampler = sampleRss(pids);
  const runs: Results[] = [];
  for (let run = 1; run <= options.runs; run++) {
    if (options.runs > 1) console.log(`\n## Run ${run} of ${options.runs}`);
    const results = newResults();
    runs.push(results);
    if (has("latency")) await latencySection(bench, results);
    if (has("depth")) await depthSection(bench, results);
    if (has("preview")) await previewSection(bench, results);
    if (has("throughput")) await throughputSection(bench, results);
    if (has("streams")) await streamsSection(bench, results);
    if (has("budget")) await budgetSection(bench);
    if (has("compatible")) {
      await compatSection(bench, results, { name: pkName, pid: portkey.pid, url: portkey.url });
    }
    printPhases(bench, results);
    printCoverage(bench, results);
    printClients(bench, results);
  }
  // The peak over every run's load (the compatible section's throughput included).
  const peaks = sampler.stop();
  if (has("throughput") || has("streams")) {
    memory.loaded.set(pkName, peaks.get(portkey.pid)!);
    for (const s of services) memory.loaded.set(s.target.name, peaks.get(s.client.pid)!);
  }
  printMemory(bench, memory, SETTLE_MS);
  printDoneWhen(bench, runs, memory, decisionP99);
  console.log(
    `\nMachine load average (1 min) at the start and the end: ${loadAtStart} / ${loadAverage()} ` +
      `(${navigator.hardwareConcurrency} cores, shared with whatever else runs on this machine).`,
  );
} catch (error) {
  // What the service said at error level explains most failed runs.
  for (const s of services) {
    for (const line of s.client.recentErrors()) console.error(`${s.store}: ${line}`);
  }
  throw error;
} finally {
  for (const cleanup of cleanups) await cleanup();
}
