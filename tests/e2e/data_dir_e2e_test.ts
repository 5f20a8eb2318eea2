/**
 * One service per embedded store's directory (src/store/data_dir.ts), with
 * real processes: a second service on a held directory refuses in one line
 * and the first serves on; a directory left by a crash, or cut short while it
 * was made, starts again; one that cannot be a store says what to do.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, unlinkSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { root, runtimeArgs, startService } from "../../bench/service_process.ts";
import { LOCK_FILE } from "../../src/store/data_dir.ts";
import { tarEntries, templateTar, writeTemplate } from "../../src/store/pglite_template.ts";

const entry = process.versions.bun !== undefined ? "src/runtime/bun.ts" : "src/runtime/deno.ts";

/** A service that is expected to refuse: its exit code, what it printed, and how long it took. */
function startRefused(
  dir: string,
): Promise<{ code: number | null; lines: string[]; ms: number }> {
  const begun = performance.now();
  const base = { ...process.env };
  delete base.DATABASE_URL;
  delete base.ROUTER_CONFIG;
  const child = spawn(process.execPath, runtimeArgs(entry), {
    cwd: root,
    env: { ...base, PORT: "0", ROUTER_STORAGE_PATH: dir },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: Uint8Array) => output += new TextDecoder().decode(chunk);
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  // Past 20 s the test fails on the time anyway; the kill keeps a hang from outliving it.
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  return new Promise((resolve) =>
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({
        code,
        lines: output.split("\n").filter((l) => l.trim() !== ""),
        ms: performance.now() - begun,
      });
    })
  );
}

const status = async (url: string) => (await fetch(`${url}/status`)).status;

async function serves(dir: string): Promise<void> {
  const service = await startService({ ROUTER_STORAGE_PATH: dir });
  try {
    assert.equal(await status(service.url), 200);
  } finally {
    await service.stop();
  }
}

describe("one service per data directory", () => {
  let base: string;
  before(async () => {
    base = await mkdtemp(join(tmpdir(), "switchyard-datadir-"));
  });
  after(() => rm(base, { recursive: true, force: true }));

  test("a second service on a held directory exits with one line naming it and the holder, and the first serves on", async () => {
    const dir = join(base, "held");
    const first = await startService({ ROUTER_STORAGE_PATH: dir });
    try {
      let answered = 0;
      let polling = true;
      const poll = (async () => {
        while (polling) {
          assert.equal(
            await status(first.url),
            200,
            "the first answers throughout",
          );
          answered++;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      })();
      const second = await startRefused(dir);
      polling = false;
      await poll;
      assert.notEqual(second.code, 0);
      assert.ok(second.ms < 10_000, `exited after ${Math.round(second.ms)} ms`);
      assert.equal(second.lines.length, 1, second.lines.join("\n"));
      assert.match(
        second.lines[0],
        /^data directory ".*" is in use by another Switchyard/,
      );
      assert.ok(second.lines[0].includes(`"${dir}"`), second.lines[0]);
      assert.ok(second.lines[0].includes(`pid ${first.pid} `), second.lines[0]);
      assert.ok(answered > 0);
      assert.equal(await status(first.url), 200);
    } finally {
      await first.stop();
    }
  });

  test("a directory left by a killed service starts again, whatever its postmaster.pid says", async () => {
    const dir = join(base, "killed");
    const killed = await startService({ ROUTER_STORAGE_PATH: dir });
    killed.kill("SIGKILL");
    await killed.exited;
    // PostgreSQL's own lock file, naming a live process (this one): PGlite does not go by it.
    writeFileSync(join(dir, "postmaster.pid"), `${process.pid}\n/pglite/data\n0\n5432\n`);
    await serves(dir);
  });

  test("a lock naming a process that ended, or a reused process id, does not hold the directory", async () => {
    const dir = join(base, "stale");
    await serves(dir);
    const ended = spawn(process.execPath, ["--version"], { stdio: "ignore" });
    await new Promise((resolve) => ended.once("close", resolve));
    const host = hostname();
    const since = new Date().toISOString();
    for (
      const holder of [
        { pid: ended.pid, host, lock: "pid", started: null, since },
        // This test's own process, alive, but not the process that wrote the lock.
        {
          pid: process.pid,
          host,
          lock: "pid",
          started: "another-boot:1",
          since,
        },
      ]
    ) {
      writeFileSync(join(dir, LOCK_FILE), JSON.stringify(holder));
      await serves(dir);
    }
  });

  test("a directory whose making was cut short starts clean", async () => {
    const dir = join(base, "cut");
    const entries = [...tarEntries(await templateTar())];
    mkdirSync(dir);
    // Half of the template, as a start killed while writing it leaves (PG_VERSION comes last).
    for (const e of entries.slice(0, entries.length / 2)) {
      if (e.directory) mkdirSync(join(dir, e.name), { recursive: true });
      else {writeFileSync(
          join(dir, e.name),
          e.data.subarray(0, e.data.length / 2),
        );}
    }
    writeFileSync(join(dir, LOCK_FILE), "");
    await serves(dir);
  });

  test("a directory that cannot be a store is refused with what to do, never Aborted()", async () => {
    const foreign = join(base, "foreign");
    mkdirSync(foreign);
    writeFileSync(join(foreign, "notes.txt"), "mine");
    const damaged = join(base, "damaged");
    writeTemplate(damaged, await templateTar());
    unlinkSync(join(damaged, "global", "pg_control"));
    for (
      const [dir, expected] of [
        [
          foreign,
          /is not empty and holds no store \(found "notes\.txt"\): set router\.storage\.path/,
        ],
        [
          damaged,
          /holds a store that cannot be opened \(.*\): restore it from a backup, or move it aside/,
        ],
      ] as const
    ) {
      const refused = await startRefused(dir);
      assert.equal(refused.code, 1);
      assert.equal(refused.lines.length, 1, refused.lines.join("\n"));
      assert.match(refused.lines[0], expected);
      assert.ok(refused.lines[0].includes(`"${dir}"`));
      assert.doesNotMatch(refused.lines[0], /Aborted\(\)/);
    }
  });
});
