/**
 * The embedded store's directory lock (src/store/data_dir.ts) within one
 * process: the runtime's file lock under Deno, the lock file alone under Bun.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { DataDirError, LOCK_FILE, lockDataDir } from "../../src/store/data_dir.ts";

describe("the data directory lock", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "switchyard-lock-"));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test("is held once, names its holder, and is free again once released", async () => {
    const first = await lockDataDir(dir);
    const holder = JSON.parse(readFileSync(join(dir, LOCK_FILE), "utf8"));
    assert.equal(holder.pid, process.pid);
    assert.equal(holder.host, hostname());
    await assert.rejects(
      lockDataDir(dir),
      (error) =>
        error instanceof DataDirError &&
        error.message.includes(
          `"${dir}" is in use by another Switchyard (pid ${process.pid} `,
        ),
    );
    first.release();
    (await lockDataDir(dir)).release();
  });

  test("a lock left by a process on another host is kept, with how to release it", async () => {
    const other = {
      pid: 1,
      host: `not-${hostname()}`,
      lock: "pid",
      started: null,
      since: "then",
    };
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify(other));
    const holding = await lockDataDir(dir).then(
      (lock) => lock,
      (error: Error) => error,
    );
    if (!(holding instanceof Error)) holding.release();
    assert.ok(holding instanceof DataDirError);
    assert.match(
      holding.message,
      /\(pid 1 on host "not-[^"]*", since then\): if that process no longer runs, delete "/,
    );
    writeFileSync(join(dir, LOCK_FILE), "");
  });
});
