/**
 * The peer benchmark's memory sampler (bench/peers/proc.ts): a target process
 * that ends under it keeps the peak it had, and the sampler goes on, so the
 * section that the process no longer answers reports it with what it logged.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { rssMb, sampleRss } from "../../bench/peers/proc.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test("a process that ends while sampled keeps its peak, and the others are still sampled", async () => {
  const short = spawn("sleep", ["0.2"]);
  const long = spawn("sleep", ["5"]);
  try {
    const sampler = sampleRss([short.pid!, long.pid!]);
    await new Promise((resolve) => short.once("exit", resolve));
    // Long enough for the 100 ms timer to sample twice after the end.
    await sleep(250);
    const peaks = sampler.stop();
    assert.ok(peaks.get(short.pid!)! > 0, "the ended process's peak before its end");
    assert.ok(peaks.get(long.pid!)! > 0, "the running process's peak");
  } finally {
    long.kill();
  }
});

test("a process that ended but is not yet reaped (a zombie) keeps its peak too", async () => {
  // The shell starts `sleep 0.5` and becomes `sleep 5`, which never reaps it.
  const parent = spawn("sh", ["-c", "sleep 0.5 & echo $!; exec sleep 5"]);
  try {
    const pid = Number(await new Promise<string>((resolve) => parent.stdout.once("data", resolve)));
    const sampler = sampleRss([pid]);
    await sleep(900);
    assert.throws(() => rssMb(pid), /ended/, "by now a zombie: a status without VmRSS");
    const peaks = sampler.stop();
    assert.ok(peaks.get(pid)! > 0, `its peak while it ran: ${peaks.get(pid)}`);
  } finally {
    parent.kill();
  }
});
