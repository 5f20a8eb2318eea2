/**
 * The embedded store when the disk fills while PostgreSQL writes its
 * write-ahead log: PostgreSQL PANICs (where a statement sent to the same
 * PGlite would spin for ever); the store answers storage_error meanwhile and
 * starts PGlite again on its directory once there is room, with every
 * committed row. Needs root (a tmpfs mount) on Linux; skipped elsewhere.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { ServiceError } from "../../src/core/errors.ts";
import { openPgliteThread, type StoreEvent } from "../../src/store/pglite_thread.ts";
import { DISK_FULL_MESSAGE } from "../../src/store/storage_fault.ts";
import { UNSYNCED_COMMIT } from "../../src/store/unsynced_commit.ts";

const isRoot = process.platform === "linux" && process.getuid?.() === 0;

/** An update of row 1 as a claim commits (unsynced, the store's thread flushing it), or synced. */
const update = (unsynced: boolean) =>
  unsynced
    ? `WITH u AS (UPDATE t SET v = $1 WHERE id = 1 RETURNING 1) SELECT ${UNSYNCED_COMMIT} FROM u`
    : "UPDATE t SET v = $1 WHERE id = 1";

for (const unsynced of isRoot ? [false, true] : []) {
  test(
    `a write-ahead log the full disk refuses restarts the embedded store once there is room, nothing committed lost (${
      unsynced ? "unsynced commits, flushed by the store's thread" : "synced commits"
    })`,
    async () => {
      const mount = mkdtempSync(join(tmpdir(), "switchyard-wal-"));
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=96m", "tmpfs", mount]);
      const events: StoreEvent["kind"][] = [];
      const db = await openPgliteThread(join(mount, "data"), {
        fsync: true,
        onEvent: (e) => events.push(e.kind),
      });
      try {
        // Room in the table for the updates to come, so the log is what fills the disk.
        await db.exec("CREATE TABLE t (id int PRIMARY KEY, v text)");
        await db.exec(
          "INSERT INTO t SELECT g, repeat('z', 900) FROM generate_series(1, 22000) g",
        );
        await db.exec("DELETE FROM t WHERE id > 1");
        await db.exec("VACUUM (TRUNCATE false) t");
        await db.exec("CHECKPOINT");
        const filler = join(mount, "filler");
        const fd = openSync(filler, "w");
        try {
          for (const block = new Uint8Array(1 << 20);;) writeSync(fd, block);
        } catch {
          /* full */
        } finally {
          closeSync(fd);
        }
        const committed: string[] = [];
        let refused: unknown = null;
        for (let i = 0; refused === null && i < 100_000; i++) {
          const v = crypto.getRandomValues(new Uint8Array(250)).join(",");
          await db.query(update(unsynced), [v]).then(
            () => committed.push(v),
            (error) => refused = error,
          );
        }
        assert.ok(refused instanceof ServiceError, String(refused));
        assert.equal(refused.failure.code, "storage_error");
        assert.equal(refused.failure.message, DISK_FULL_MESSAGE);
        assert.ok(events.includes("restarting"), JSON.stringify(events));
        // Refused at once while full, never a hang.
        await assert.rejects(
          db.query("SELECT 1"),
          (e) => e instanceof ServiceError,
        );
        unlinkSync(filler);
        const back = performance.now();
        for (;;) {
          const rows = await db.query<{ v: string }>(
            "SELECT v FROM t WHERE id = 1",
          ).catch(() => null);
          if (rows !== null) {
            // An unsynced commit whose flush the full disk refused is not kept, as on a server.
            const kept = unsynced ? committed.slice(-2) : committed.slice(-1);
            assert.ok(kept.includes(rows[0].v), "the last commit was lost");
            break;
          }
          assert.ok(
            performance.now() - back < 10_000,
            "not reopened 10 s after space returned",
          );
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        console.log(
          `reopened ${Math.round(performance.now() - back)} ms after space returned`,
        );
        assert.deepEqual(events.slice(-1), ["reopened"]);
        await db.query("UPDATE t SET v = 'after' WHERE id = 1");
      } finally {
        await db.close();
        execFileSync("umount", ["-l", mount]);
        rmSync(mount, { recursive: true, force: true });
      }
    },
  );
}
