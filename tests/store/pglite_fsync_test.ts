/**
 * `router.storage.fsync` (src/store/pglite_fsync.ts): PGlite runs PostgreSQL
 * with fsync off, and its file system has no sync to call even with it on.
 * Chosen, the store runs PostgreSQL with fsync on and its syncs reach the host.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { PGlite } from "@electric-sql/pglite";
import { durabilityParams, SyncedNodeFS } from "../../src/store/pglite_fsync.ts";
import { START_PARAMS } from "../../src/store/pglite_driver.ts";
import { fromTemplate } from "../../src/store/pglite_template.ts";
import { openPgliteThread } from "../../src/store/pglite_thread.ts";

async function inTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "switchyard-fsync-"));
  try {
    await fn(join(dir, "data"));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const SETTINGS = `SELECT current_setting('fsync') AS fsync,
  current_setting('wal_sync_method') AS wal_sync_method`;

describe("the embedded store's fsync", () => {
  test("PGlite's own start parameters turn fsync off; chosen, it is on and synced by fsync(2)", () => {
    assert.equal(START_PARAMS.includes("-F"), true);
    assert.deepEqual(durabilityParams(START_PARAMS, false), [...START_PARAMS]);
    const on = durabilityParams(START_PARAMS, true);
    assert.equal(on.includes("-F"), false);
    assert.equal(on.includes("fsync=on"), true);
    assert.equal(on.includes("wal_sync_method=fsync"), true);
  });

  for (const fsync of [true, false]) {
    test(`a store opened with fsync ${fsync ? "on" : "off"} runs PostgreSQL so`, async () => {
      await inTempDir(async (path) => {
        const db = await openPgliteThread(path, { fsync });
        try {
          assert.deepEqual(await db.query(SETTINGS), [{
            fsync: fsync ? "on" : "off",
            wal_sync_method: fsync ? "fsync" : "fdatasync",
          }]);
        } finally {
          await db.close();
        }
      });
    });
  }

  test("with fsync on, each commit's sync reaches the host's file system", async () => {
    await inTempDir(async (path) => {
      await fromTemplate(path);
      let syncs = 0;
      const pg = await PGlite.create({
        fs: new SyncedNodeFS(path, () => syncs++),
        startParams: durabilityParams(START_PARAMS, true),
      });
      try {
        await pg.exec("CREATE TABLE t (n int)");
        const before = syncs;
        for (let n = 0; n < 5; n++) await pg.query("INSERT INTO t VALUES ($1)", [n]);
        assert.equal(syncs - before >= 5, true, `${syncs - before} syncs for 5 commits`);
      } finally {
        await pg.close();
      }
    });
  });
});
