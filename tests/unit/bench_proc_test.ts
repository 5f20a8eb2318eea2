/**
 * The peer benchmark's memory sampler (bench/peers/proc.ts): a target process
 * that ends under it keeps the peak it had, and the sampler goes on, so the
 * section that the process no longer answers reports it with what it logged.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { sampleRss } from "../../bench/peers/proc.ts";

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
