/**
 * The peer benchmark's load generator under Node.js, beside the Deno one: a
 * child of `deno task bench:peers` that runs the same measurements on its own
 * clock. It reads one job (JSON, a line) on stdin and prints its result (JSON,
 * a line) on stdout; while it runs it may ask the parent for something with a
 * line `{"ask": …}` and reads the answer as the next line of stdin (a fresh
 * conversation's request for the next block, or "warm": the parent's moment to
 * scrape the service before the timed blocks). Node.js built-ins only, plain
 * JavaScript, no build step.
 *
 * A request ("wire"): `{url, headers, body, expect}`; `expect.status` names
 * the top-level `status` a JSON answer must carry, `expect.contains` a text
 * it must contain. Anything else is a failure, never a data point.
 */
import http from "node:http";
import { createInterface } from "node:readline";
import { commandCpuMs, cpuMs, machineBusyMs } from "./proc.mjs";

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
/** A buffered answer not done in a minute is a failure (as the Deno generator's timeout). */
const TIMEOUT_MS = 60_000;

const lines = createInterface({ input: process.stdin });
const pending = [];
const queued = [];
lines.on("line", (line) => {
  const waiting = pending.shift();
  if (waiting) waiting(JSON.parse(line));
  else queued.push(JSON.parse(line));
});
const nextLine = () =>
  queued.length > 0
    ? Promise.resolve(queued.shift())
    : new Promise((resolve) => pending.push(resolve));
const say = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const ask = (question) => {
  say({ ask: question });
  return nextLine();
};

/** A wire made ready to send: its URL parsed and its body encoded once. */
function prepared(wire) {
  const url = new URL(wire.url);
  const body = Buffer.from(wire.body);
  return {
    options: {
      agent,
      method: "POST",
      hostname: url.hostname,
      port: url.port,
      path: url.pathname + url.search,
      headers: { ...wire.headers, "content-length": String(body.length) },
      timeout: TIMEOUT_MS,
    },
    body,
    expect: wire.expect,
  };
}

function checked(p, status, text) {
  const ok = status >= 200 && status < 300 &&
    (p.expect.contains === undefined || text.includes(p.expect.contains)) &&
    (p.expect.status === undefined || JSON.parse(text).status === p.expect.status);
  if (!ok) throw new Error(`${status} ${text.slice(0, 300)}`);
}

/** One buffered answer read to its end; resolves with its Server-Timing header (or null). */
function send(p) {
  return new Promise((resolve, reject) => {
    const request = http.request(p.options, (response) => {
      const chunks = [];
      response.on("data", (chunk) => chunks.push(chunk));
      response.on("error", reject);
      response.on("end", () => {
        try {
          checked(p, response.statusCode, Buffer.concat(chunks).toString("utf8"));
          resolve(response.headers["server-timing"] ?? null);
        } catch (error) {
          reject(error);
        }
      });
    });
    request.on("timeout", () => request.destroy(new Error("timed out")));
    request.on("error", reject);
    request.end(p.body);
  });
}

/**
 * Each target's requests at concurrency 1 in interleaved blocks, as
 * bench/peers/latency.ts's `interleavedLatency`: warm-up blocks per target,
 * then blocks rotating over the targets, each block's requests on one
 * conversation asked of the parent before the block (outside the timing).
 */
async function interleaved(job) {
  const { targets, blocks, perBlock, warmUp } = job;
  const runs = targets.map(() => ({ times: [], timings: [], cpu: 0, database: 0 }));
  for (let i = 0; i < targets.length; i++) {
    for (let n = 0; n < warmUp; n += perBlock) {
      const p = prepared(await ask({ wire: i }));
      for (let k = n; k < Math.min(warmUp, n + perBlock); k++) await send(p);
    }
  }
  await ask({ warm: true });
  for (let b = 0; b < blocks; b++) {
    for (let k = 0; k < targets.length; k++) {
      const i = (b + k) % targets.length;
      const run = runs[i];
      const p = prepared(await ask({ wire: i }));
      const cpuBefore = cpuMs(targets[i].pid);
      const databaseBefore = commandCpuMs("postgres");
      for (let n = 0; n < perBlock; n++) {
        const start = performance.now();
        const timing = await send(p);
        run.times.push(performance.now() - start);
        run.timings.push(timing);
      }
      run.cpu += cpuMs(targets[i].pid) - cpuBefore;
      run.database += commandCpuMs("postgres") - databaseBefore;
    }
  }
  return runs;
}

/**
 * One loop per client (`wires`, each its conversations) sending back to back, as bench/peers/load.ts's
 * `closedLoop`: client c's n-th request (n counting from `firstCall`, 0 by
 * default) goes on its conversation floor(n / perSession) (cycling), until
 * `ms` have passed since the first call, or `count` requests have started.
 * With `pid`, the target's CPU, the PostgreSQL server's and the machine's busy
 * time over the loop.
 */
async function closed(job) {
  const { perSession, ms, count, pid } = job;
  const wires = job.wires.map((list) => list.map(prepared));
  const times = [];
  let errors = 0;
  let firstError;
  let started = 0;
  let end;
  const more = ms !== undefined
    ? () => performance.now() < (end ??= performance.now() + ms)
    : () => started++ < count;
  const cpuBefore = pid === undefined ? 0 : cpuMs(pid);
  const databaseBefore = pid === undefined ? 0 : commandCpuMs("postgres");
  const machineBefore = pid === undefined ? 0 : machineBusyMs();
  const start = performance.now();
  await Promise.all(wires.map(async (list) => {
    for (let n = job.firstCall ?? 0; more(); n++) {
      const t = performance.now();
      try {
        await send(list[Math.floor(n / perSession) % list.length]);
        times.push(performance.now() - t);
      } catch (error) {
        errors++;
        firstError ??= String(error);
      }
    }
  }));
  const wallMs = performance.now() - start;
  return {
    times,
    errors,
    firstError,
    wallMs,
    cpu: pid === undefined ? 0 : cpuMs(pid) - cpuBefore,
    database: pid === undefined ? 0 : commandCpuMs("postgres") - databaseBefore,
    machine: pid === undefined ? 0 : machineBusyMs() - machineBefore,
  };
}

const job = await nextLine();
const kinds = { interleaved, closed };
try {
  say({ result: await kinds[job.kind](job) });
  lines.close();
  agent.destroy();
} catch (error) {
  say({ error: String(error?.stack ?? error) });
  process.exitCode = 1;
  lines.close();
  agent.destroy();
}
