/**
 * The peer benchmark's two load generators (bench/peers/load_client.ts): the
 * Node.js child process and this process run the same closed loop and the
 * same interleaved blocks, send each client's requests on the conversations
 * the job names, count a wrong answer as a failure and hand back each answer's
 * Server-Timing header; and what the bench reads from those headers.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { denoClient, type LoadClient, nodeClient } from "../../bench/peers/load_client.ts";
import { type RunLoop, SLICES, throughputInTurns } from "../../bench/peers/load.ts";
import { readOptions } from "../../bench/peers/options.ts";
import { turnFloor } from "../../bench/peers/commit_floor.ts";
import { coverage, parseServerTiming } from "../../bench/peers/server_timing.ts";
import { directTarget, sendWire, type Target, type Wire } from "../../bench/peers/targets.ts";
import { BENCH_MODEL, startChatProvider } from "../../bench/chat_provider.ts";

const TIMING = "auth;dur=1.00, claim;dur=2.50, provider_connect;dur=0.75, write;dur=3.00";

describe("the peer benchmark's load generators", () => {
  let server: Server;
  let url = "";
  /** The conversation of every request the server answered, in arrival order. */
  const seen: string[] = [];
  before(async () => {
    server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => (body += chunk));
      request.on("end", () => {
        seen.push(String(request.headers["x-conversation"]));
        const status = request.url === "/bad" ? "failed" : "completed";
        response.writeHead(200, { "content-type": "application/json", "server-timing": TIMING });
        response.end(JSON.stringify({ status, echo: JSON.parse(body).n }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const target = (name: string, path = "/turn"): Target => {
    let made = 0;
    const wire = (conversation: string): Wire => ({
      url: `${url}${path}`,
      headers: { "content-type": "application/json", "x-conversation": conversation },
      body: JSON.stringify({ n: 1 }),
      expect: { status: "completed" },
    });
    return {
      name,
      pid: process.pid,
      conversations: (count) =>
        Promise.resolve(Array.from({ length: count }, () => `${name}-${made++}`)),
      wire,
      buffered: (c) => sendWire(wire(c)),
      streamed: () => Promise.reject(new Error("not used")),
    };
  };

  for (const client of [nodeClient, denoClient] as LoadClient[]) {
    test(`${client.name}: a closed loop sends each client's turns on its conversations in order`, async () => {
      seen.length = 0;
      const t = target("loop");
      const result = await client.loop(t, {
        clients: 2,
        conversations: [["a0", "a1"], ["b0", "b1"]],
        perSession: 3,
        count: 14,
        pid: process.pid,
      });
      assert.equal(result.times.length, 14);
      assert.equal(result.errors, 0);
      assert.ok(result.wallMs > 0 && result.times.every((ms) => ms > 0));
      // Each client moves to its next conversation every 3 turns, cycling through its list (the
      // count is shared: a faster client may take more than half).
      for (const prefix of ["a", "b"]) {
        const mine = seen.filter((c) => c.startsWith(prefix));
        assert.ok(mine.length > 0);
        assert.deepEqual(mine, mine.map((_, n) => `${prefix}${Math.floor(n / 3) % 2}`));
      }
      assert.equal(seen.length, 14);
    });

    test(`${client.name}: a loop that goes on from another starts each client's count where it says`, async () => {
      seen.length = 0;
      await client.loop(target("on"), {
        clients: 2,
        conversations: [["a0", "a1", "a2"], ["b0", "b1", "b2"]],
        perSession: 3,
        firstCall: 4,
        count: 12,
      });
      // Call 4 is the second of conversation 1; from call 9 on, the list cycles back to 0.
      for (const prefix of ["a", "b"]) {
        const mine = seen.filter((c) => c.startsWith(prefix));
        assert.ok(mine.length > 0);
        assert.deepEqual(mine, mine.map((_, n) => `${prefix}${Math.floor((4 + n) / 3) % 3}`));
      }
    });

    test(`${client.name}: an answer without the expected status is a failure, never a time`, async () => {
      const result = await client.loop(target("bad", "/bad"), {
        clients: 2,
        conversations: [["x"], ["y"]],
        perSession: 50,
        count: 6,
      });
      assert.equal(result.times.length, 0);
      assert.equal(result.errors, 6);
      assert.match(result.firstError ?? "", /failed/);
    });

    test(`${client.name}: interleaved blocks, a fresh conversation per block, warm once after the warm-up`, async () => {
      seen.length = 0;
      const [one, two] = [target("one"), target("two")];
      let seenAtWarm = -1;
      const runs = await client.interleaved(
        [one, two],
        { blocks: 3, perBlock: 2, warmUp: 4 },
        () => {
          seenAtWarm = seen.length;
          return Promise.resolve();
        },
      );
      assert.equal(seenAtWarm, 8);
      for (const t of [one, two]) {
        const run = runs.get(t)!;
        assert.equal(run.times.length, 6);
        assert.deepEqual(run.timings, Array(6).fill(TIMING));
      }
      // After the warm-up: blocks of 2 on one conversation each, the targets' order rotating.
      const timed = seen.slice(8);
      assert.deepEqual(
        timed.map((c) => c.split("-")[0]),
        ["one", "one", "two", "two", "two", "two", "one", "one", "one", "one", "two", "two"],
      );
      for (let i = 0; i < timed.length; i += 2) assert.equal(timed[i], timed[i + 1]);
      assert.equal(new Set(timed).size, 6);
    });
  }
});

describe("throughput with the targets taking turns", () => {
  test("each target's slices alternate with the others', and its result is their sum", async () => {
    const calls: string[] = [];
    const loop: RunLoop = (t, job) => {
      calls.push(`${t.name}:${job.ms === undefined ? `${job.count}@${job.firstCall}` : "pilot"}`);
      // The pilot answers 40 calls in its 2 s; each slice's calls take 10 ms of wall time.
      const n = job.ms === undefined ? job.count! : 40;
      return Promise.resolve({
        times: Array(n).fill(t.name === "one" ? 1 : 2),
        errors: t.name === "two" && job.firstCall === 10 ? 1 : 0,
        ...(t.name === "two" && job.firstCall === 10 ? { firstError: "late" } : {}),
        wallMs: n * 10,
        cpu: n,
        database: 0,
        machine: n * 2,
      });
    };
    const target = (name: string) =>
      ({
        name,
        conversations: (k: number) => Promise.resolve(Array(k).fill(name)),
      }) as unknown as Target;
    const [one, two] = [target("one"), target("two")];
    // 40 calls in the 2 s pilot at 2 clients: 60 calls in 3 s, 20 a slice, each client's 10th call next.
    const measured = await throughputInTurns([one, two], 2, 3, loop);
    assert.equal(SLICES, 3);
    assert.deepEqual(calls, [
      "one:pilot",
      "two:pilot",
      "one:20@0",
      "two:20@0",
      "one:20@10",
      "two:20@10",
      "one:20@20",
      "two:20@20",
    ]);
    const first = measured.get(one)!;
    assert.equal(first.requests, 60);
    assert.equal(first.perSecond, 100);
    assert.equal(first.cpuMsPerRequest, 1);
    assert.equal(first.machineCores, 0.2);
    assert.equal(first.p50, 1);
    assert.equal(first.errors, 0);
    const second = measured.get(two)!;
    assert.equal(second.p50, 2);
    assert.equal(second.errors, 1);
    assert.equal(second.firstError, "late");
  });
});

describe("what the bench reads from Server-Timing", () => {
  test("a header's phases, in milliseconds", () => {
    assert.deepEqual(
      [...parseServerTiming(TIMING)],
      [["auth", 1], ["claim", 2.5], ["provider_connect", 0.75], ["write", 3]],
    );
    assert.deepEqual([...parseServerTiming("cache;desc=hit, db;dur=2")], [["db", 2]]);
  });

  test("the phases against the added latency, request by request", () => {
    // Own phases 6.5 ms, the provider's 0.75 ms; the direct request's p50 is 1 ms.
    const c = coverage([10.25, 8.25, 12.25], [TIMING, TIMING, TIMING], 1)!;
    assert.equal(c.requests, 3);
    assert.equal(c.ownP50, 6.5);
    assert.equal(c.providerP50, 0.75);
    assert.equal(c.addedP50, 9.25);
    assert.equal(c.outsideP50, 3);
    assert.equal(c.medianRatio, 6.5 / 9.25);
    assert.equal(c.withCallRatio, (6.5 + 0.75 - 1) / 9.25);
    assert.equal(c.unexplainedP50, 9.25 - 6.5);
    assert.equal(coverage([5], [null], 1), undefined);
  });
});

describe("bench:peers options", () => {
  test("--client and --runs, flags over the environment", () => {
    const o = readOptions(["--client=node", "--runs=3"], { BENCH_CLIENT: "deno" });
    assert.deepEqual(o.clients, ["node"]);
    assert.equal(o.runs, 3);
    const d = readOptions([], { BENCH_RUNS: "2" });
    assert.deepEqual(d.clients, ["node", "deno"]);
    assert.equal(d.runs, 2);
    assert.throws(() => readOptions(["--client=curl"], {}), /--client/);
    assert.throws(() => readOptions(["--runs=0"], {}), /--runs/);
  });
});

describe("the store's floor beside what a turn adds", () => {
  const floor = {
    what: "one-row INSERT",
    commit: { p50: 0.4, p99: 1 },
    commitAfterPause: { p50: 1.1, p99: 3 },
  };
  test("a turn at concurrency 1 meets its store after idle: the paused figures, not the back-to-back ones", () => {
    assert.equal(turnFloor({ ...floor, roundTripAfterPause: { p50: 0.25, p99: 2 } }), 1.35);
  });
  test("in process, the synced commit alone", () => {
    assert.equal(turnFloor(floor), 1.1);
  });
});

describe("the benchmarks' fake provider", () => {
  test("holds a request that asks it to, and gives its handler's time; others answer at once, without it", async () => {
    const provider = await startChatProvider();
    try {
      const body = JSON.stringify({
        model: BENCH_MODEL,
        messages: [{ role: "user", content: "hi" }],
      });
      const held = directTarget(process.pid, provider.url, body, 30);
      const hold = parseServerTiming(await held.buffered("") ?? "").get("hold");
      assert.ok(hold !== undefined && hold >= 30, `held for ${hold} ms`);
      assert.equal(await directTarget(process.pid, provider.url, body).buffered(""), null);
    } finally {
      await provider.close();
    }
  });
});
