/**
 * Backups of the embedded store (src/store/backup.ts, pglite_backup.ts):
 * every row back byte for byte, into PGlite and into PostgreSQL through
 * psql; refused while a service holds the directory, over a directory that
 * holds something unless forced, and from a file that is not a whole backup.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { root, runtimeArgs } from "../../bench/service_process.ts";
import { BACKUP_HEADER } from "../../src/store/backup.ts";
import { DataDirError } from "../../src/store/data_dir.ts";
import { migrate } from "../../src/store/migrate.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { backupStore, restoreStore } from "../../src/store/pglite_backup.ts";
import { openPgliteThread } from "../../src/store/pglite_thread.ts";
import { openPostgres } from "../../src/store/postgres_driver.ts";
import { call, signUp } from "../support/app.ts";
import { createScratchDatabase } from "../support/databases.ts";
import { dumpDatabase } from "../support/db_dump.ts";
import { createEngineApp, openAiReply } from "../support/engine_app.ts";
import { startFakeProvider } from "../support/fake_provider.ts";

/** Text that COPY's format must escape, and characters beyond ASCII. */
const AWKWARD = "tab\there, new\nline, back\\slash, \\N, quote ' \" ünïcødé 🚂 \\.";

const options = { migrations: MIGRATIONS, version: "test", now: new Date(0) };

async function tableDump(path: string): Promise<string> {
  const db = await openPgliteThread(path, { fsync: false });
  try {
    return await dumpDatabase(db);
  } finally {
    await db.close();
  }
}

describe("backup and restore of the embedded store", () => {
  let work: string;
  let store: string;
  let file: string;
  let before_: string;

  before(async () => {
    work = await mkdtemp(join(tmpdir(), "switchyard-backup-"));
    store = join(work, "data");
    file = join(work, "store.sql");
    const db = await openPgliteThread(store, { fsync: false });
    const openai = await startFakeProvider();
    try {
      await migrate(db);
      const app = await createEngineApp({ openai: openai.url, ollama: "http://127.0.0.1:9", db });
      const alice = await signUp(app);
      for (let s = 0; s < 3; s++) {
        const created = await call(app, "POST", "/api/v1/sessions", {
          token: alice.token,
          body: { title: `${AWKWARD} ${s}` },
        });
        for (let t = 0; t < 2; t++) {
          openai.enqueue(openAiReply({ text: `${AWKWARD} answer ${s}.${t}` }));
          const r = await call(app, "POST", `/api/v1/sessions/${created.body.session.id}/execute`, {
            token: alice.token,
            headers: { "x-router-provider-openai-api-key": "sk-test-openai" },
            body: {
              input: { text: `${AWKWARD} question ${s}.${t}` },
              policy: {
                routing: { default: { model: "openai/gpt-4o-mini" } },
                privacy: { remote: { mode: "allow" } },
              },
            },
          });
          assert.equal(r.body.status, "completed", JSON.stringify(r.body));
        }
      }
      await app.close();
      const counts = await db.query<{ name: string; n: number }>(
        `SELECT 'sessions' AS name, count(*)::int AS n FROM sessions
         UNION ALL SELECT 'messages', count(*)::int FROM messages
         UNION ALL SELECT 'trace_events', count(*)::int FROM trace_events
         UNION ALL SELECT 'usage_events', count(*)::int FROM usage_events`,
      );
      for (const c of counts) assert.ok(c.n >= 3, `${c.name}: ${c.n} rows`);
      before_ = await dumpDatabase(db);
      assert.ok(before_.includes(JSON.stringify(`${AWKWARD} answer 2.1`).slice(1, -1)));
    } finally {
      await db.close();
      await openai.close();
    }
    await backupStore(store, file, options);
  });
  after(() => rm(work, { recursive: true, force: true }));

  test("a backup is plain SQL with every table's rows, and the store is left as it was", async () => {
    const text = readFileSync(file, "utf8");
    assert.ok(text.startsWith(BACKUP_HEADER));
    for (const table of ["sessions", "messages", "trace_events", "usage_events"]) {
      assert.match(text, new RegExp(`^COPY public\\."${table}" \\(.*\\) FROM stdin;$`, "m"));
    }
    assert.ok(text.endsWith("COMMIT;\n"));
    assert.equal(await tableDump(store), before_);
  });

  test("restored into a new directory, every row is back byte for byte", async () => {
    const target = join(work, "restored");
    await restoreStore(file, target, { ...options, force: false });
    assert.equal(await tableDump(target), before_);
    // A working store: nothing left to migrate, and its identity columns go on from where they were.
    const db = await openPgliteThread(target, { fsync: false });
    try {
      assert.deepEqual(await migrate(db), []);
      const [seq] = await db.query<{ ok: boolean }>(
        `SELECT nextval(pg_get_serial_sequence('trace_events', 'seq')) >
                (SELECT max(seq) FROM trace_events) AS ok`,
      );
      assert.equal(seq.ok, true);
    } finally {
      await db.close();
    }
    assert.deepEqual(readdirSync(work).filter((n) => n.startsWith(".")), [], "nothing left beside");
  });

  test("a directory that holds something is replaced only when forced, whole", async () => {
    const target = join(work, "occupied");
    await restoreStore(file, target, { ...options, force: false });
    writeFileSync(join(target, "stray"), "x");
    await assert.rejects(
      restoreStore(file, target, { ...options, force: false }),
      (e: Error) =>
        e instanceof DataDirError && /is not empty: restore with --force/.test(e.message),
    );
    assert.equal(existsSync(join(target, "stray")), true, "left as it was");
    await restoreStore(file, target, { ...options, force: true });
    assert.equal(existsSync(join(target, "stray")), false);
    assert.equal(await tableDump(target), before_);
    assert.deepEqual(readdirSync(work).filter((n) => n.startsWith(".")), []);
  });

  test("a file cut short, or not a backup, is refused and the directory is untouched", async () => {
    const target = join(work, "kept");
    await restoreStore(file, target, { ...options, force: false });
    const cut = join(work, "cut.sql");
    const whole = readFileSync(file);
    writeFileSync(cut, whole.subarray(0, whole.length - 20));
    await assert.rejects(restoreStore(cut, target, { ...options, force: true }), /cut short/);
    writeFileSync(cut, "SELECT 1;\n");
    await assert.rejects(
      restoreStore(cut, target, { ...options, force: true }),
      /not a Switchyard backup/,
    );
    assert.equal(await tableDump(target), before_);
    assert.deepEqual(readdirSync(work).filter((n) => n.startsWith(".")), []);
  });

  test("while a service holds the directory, backup and restore refuse naming the holder", async () => {
    const held = await openPgliteThread(store, { fsync: false });
    try {
      const inUse = (e: Error) =>
        e instanceof DataDirError && /is in use by another/.test(e.message);
      await assert.rejects(backupStore(store, join(work, "other.sql"), options), inUse);
      await assert.rejects(restoreStore(file, store, { ...options, force: true }), inUse);
      assert.equal(existsSync(join(work, "other.sql")), false);
    } finally {
      await held.close();
    }
  });

  test("the command line: backup, then restore refusing in one line while the store is held", async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const base = { ...process.env };
        delete base.DATABASE_URL;
        delete base.ROUTER_CONFIG;
        const entry = process.versions.bun !== undefined
          ? "src/runtime/bun.ts"
          : "src/runtime/deno.ts";
        const child = spawn(process.execPath, [...runtimeArgs(entry), ...args], {
          cwd: root,
          env: { ...base, ROUTER_STORAGE_PATH: store },
          stdio: ["ignore", "pipe", "pipe"],
        });
        let out = "";
        let err = "";
        child.stdout!.on("data", (c: Uint8Array) => out += new TextDecoder().decode(c));
        child.stderr!.on("data", (c: Uint8Array) => err += new TextDecoder().decode(c));
        child.once("close", (code) => resolve({ code, out, err }));
      });
    const cliFile = join(work, "cli.sql");
    const made = await run(["backup", cliFile]);
    assert.equal(made.code, 0, made.err);
    assert.match(made.out, /^backed up ".*" to ".*cli\.sql" \(\d+\.\d MB\)\n$/);
    assert.ok(readFileSync(cliFile, "utf8").startsWith(BACKUP_HEADER));
    const held = await openPgliteThread(store, { fsync: false });
    try {
      const refused = await run(["restore", cliFile, "--force"]);
      assert.equal(refused.code, 1);
      const lines = refused.err.trim().split("\n");
      assert.equal(lines.length, 1, refused.err);
      assert.match(lines[0], /^data directory ".*" is in use by another Switchyard/);
    } finally {
      await held.close();
    }
    const unforced = await run(["restore", cliFile]);
    assert.equal(unforced.code, 1);
    assert.match(unforced.err.trim(), /^data directory ".*" is not empty: restore with --force/);
  });

  // PostgreSQL's own client loads it as it would any plain dump.
  const url = process.env.DATABASE_URL;
  if (url) {
    test("psql loads a backup into PostgreSQL with every row byte for byte", async () => {
      assert.equal(
        spawnSync("psql", ["--version"]).status,
        0,
        "psql (postgresql-client) is installed beside the PostgreSQL the tests use",
      );
      const scratch = await createScratchDatabase(url!);
      try {
        const loaded = spawnSync("psql", ["-q", "-v", "ON_ERROR_STOP=1", "-f", file, scratch.url], {
          encoding: "utf8",
          env: { ...process.env, PGTZ: "UTC" },
        });
        assert.equal(loaded.status, 0, loaded.stderr);
        const db = openPostgres(scratch.url, { maxConnections: 1 });
        try {
          await db.query("SET TimeZone = 'UTC'");
          assert.equal(await dumpDatabase(db), before_);
        } finally {
          await db.close();
        }
      } finally {
        await scratch.drop();
      }
    });
  }
});
