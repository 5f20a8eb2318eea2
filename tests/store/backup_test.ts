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
import { BACKUP_HEADER, type DumpPart, dumpParts } from "../../src/store/backup.ts";
import { DataDirError } from "../../src/store/data_dir.ts";
import { migrate } from "../../src/store/migrate.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { backupStore, READ_CHUNK_BYTES, restoreStore } from "../../src/store/pglite_backup.ts";
import { openPgliteThread } from "../../src/store/pglite_thread.ts";
import { insertSession } from "../../src/store/sessions.ts";
import { insertUserWithKey } from "../../src/store/users.ts";
import { uuidv7 } from "../../src/platform/ids.ts";
import { openPostgres } from "../../src/store/postgres_driver.ts";
import { call, signUp } from "../support/app.ts";
import { createScratchDatabase } from "../support/databases.ts";
import { dumpDatabase, functionDefinitions } from "../support/db_dump.ts";
import { createEngineApp, openAiReply } from "../support/engine_app.ts";
import { startFakeProvider } from "../support/fake_provider.ts";

/** How many COPY blocks (tables) a backup has. */
const countTables = (text: string) => text.match(/^COPY .* FROM stdin;$/gm)?.length ?? 0;

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

async function functionDump(path: string): Promise<Record<string, string>> {
  const db = await openPgliteThread(path, { fsync: false });
  try {
    return await functionDefinitions(db);
  } finally {
    await db.close();
  }
}

describe("backup and restore of the embedded store", () => {
  let work: string;
  let store: string;
  let file: string;
  let before_: string;
  let functions: Record<string, string>;

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
      functions = await functionDefinitions(db);
      assert.ok(Object.keys(functions).length >= 10, "the store has its functions");
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
    assert.deepEqual(await functionDump(target), functions);
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

  test("read 7 bytes at a time, characters split across reads, every row is back byte for byte", async () => {
    const target = join(work, "by-sevens");
    const { tables } = await restoreStore(file, target, {
      ...options,
      force: false,
      readBytes: 7,
      pieceBytes: 100,
    });
    assert.equal(tables, countTables(readFileSync(file, "utf8")));
    assert.equal(await tableDump(target), before_);
    // Backed up again, the restored store makes the same file, byte for byte.
    const again = join(work, "again.sql");
    await backupStore(target, again, options);
    assert.ok(readFileSync(again).equals(readFileSync(file)));
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
          assert.deepEqual(await functionDefinitions(db), functions);
        } finally {
          await db.close();
        }
      } finally {
        await scratch.drop();
      }
    });
  }
});

describe("restore reads a backup larger than a read as a stream", () => {
  let work: string;
  let store: string;
  let file: string;
  let before_: string;
  /** A message's text longer than a read and than a COPY piece: escapes and 2- and 4-byte characters. */
  const LONG = "ü🚂\t\\ é".repeat(200_000);

  before(async () => {
    work = await mkdtemp(join(tmpdir(), "switchyard-backup-large-"));
    store = join(work, "data");
    file = join(work, "store.sql");
    const db = await openPgliteThread(store, { fsync: false });
    try {
      await migrate(db);
      const userId = uuidv7();
      await insertUserWithKey(db, {
        id: userId,
        keyHash: "x",
        now: new Date(0),
      });
      const session = await insertSession(db, {
        id: uuidv7(),
        userId,
        title: LONG.slice(0, 5_000),
        now: new Date(0),
      });
      // Many short rows (a table of several pieces), and a few long ones spanning many reads.
      await db.query(
        `INSERT INTO messages (id, session_id, seq, role, content, created_at)
         SELECT gen_random_uuid(), $1, g, 'user',
                jsonb_build_object('plaintext', CASE WHEN g % 10000 = 0 THEN $2::text ELSE $3::text || g END),
                $4::timestamptz + g * interval '1 ms'
         FROM generate_series(1, 40000) AS g`,
        [session.id, LONG, `${AWKWARD} row `, new Date(0)],
      );
      before_ = await dumpDatabase(db);
    } finally {
      await db.close();
    }
    await backupStore(store, file, options);
  });
  after(() => rm(work, { recursive: true, force: true }));

  test("every row is back byte for byte, the table loaded a piece at a time", async () => {
    const size = readFileSync(file).length;
    assert.ok(
      size > 16 * READ_CHUNK_BYTES,
      `a backup of ${size} bytes spans many reads`,
    );
    const target = join(work, "restored");
    await restoreStore(file, target, { ...options, force: false });
    assert.equal(await tableDump(target), before_);
    const again = join(work, "again.sql");
    await backupStore(target, again, options);
    assert.ok(readFileSync(again).equals(readFileSync(file)));
  });
});

describe("a backup's parts, read in chunks of any size", () => {
  /** A backup as dumpStore writes one: statements, COPY blocks of rows (an empty one), its end. */
  const rows = (n: number, text: string) =>
    Array.from({ length: n }, (_, k) => `${k}\t${text} ${k}\n`).join("");
  const escaped = AWKWARD.replaceAll("\\", "\\\\").replaceAll("\t", "\\t")
    .replaceAll("\n", "\\n");
  const blocks = [
    {
      statement: 'COPY public."a" ("id", "text") FROM stdin;',
      rows: rows(300, escaped),
    },
    { statement: 'COPY public."empty" ("id") FROM stdin;', rows: "" },
    {
      statement: 'COPY public."b" ("id", "text") FROM stdin;',
      rows: rows(3, "🚂".repeat(500)),
    },
  ];
  const sql =
    `${BACKUP_HEADER}\n-- ünïcødé in a comment 🚂\nBEGIN;\nCREATE TABLE a (id int, text text);\n`;
  const end = "SELECT pg_catalog.setval('public.\"a_id_seq\"', 3, true);\nCOMMIT;\n";
  const dump = new TextEncoder().encode(
    sql + blocks.map((b) => `\n${b.statement}\n${b.rows}\\.\n`).join("") + end,
  );

  async function* chunked(
    bytes: Uint8Array,
    size: number,
    pulled?: { bytes: number },
  ) {
    for (let at = 0; at < bytes.length; at += size) {
      const chunk = bytes.slice(at, at + size);
      if (pulled !== undefined) pulled.bytes += chunk.length;
      yield chunk;
    }
  }

  async function collect(parts: AsyncIterable<DumpPart>) {
    const sqls: string[] = [];
    const copies: { statement: string; rows: string; pieces: number }[] = [];
    const decoder = new TextDecoder();
    for await (const part of parts) {
      if (part.kind === "sql") {
        sqls.push(part.text);
        continue;
      }
      if (part.first) {
        copies.push({ statement: part.statement, rows: "", pieces: 0 });
      }
      const copy = copies.at(-1)!;
      assert.equal(part.statement, copy.statement);
      copy.rows += decoder.decode(part.data);
      copy.pieces++;
    }
    return { sqls, copies };
  }

  test("every chunking gives the same statements and the same rows, byte for byte", async () => {
    const whole = await collect(dumpParts(chunked(dump, dump.length), 1024));
    assert.deepEqual(
      whole.copies.map(({ statement, rows }) => ({ statement, rows })),
      blocks,
    );
    assert.equal(
      whole.sqls.join(""),
      sql + "\n" + end,
      "blank lines between tables left out",
    );
    assert.ok(whole.copies[0].pieces > 1, "a table of several pieces");
    assert.equal(
      whole.copies[1].pieces,
      1,
      "an empty table has one empty piece",
    );
    for (const size of [1, 2, 3, 5, 7, 64, 1000, 4096]) {
      assert.deepEqual(
        await collect(dumpParts(chunked(dump, size), 1024)),
        whole,
        `chunks of ${size}`,
      );
    }
  });

  test("a piece holds about pieceBytes of whole rows, and no more is read ahead than a piece and a chunk", async () => {
    const pulled = { bytes: 0 };
    const chunk = 100;
    let given = 0;
    for await (const part of dumpParts(chunked(dump, chunk, pulled), 1024)) {
      if (part.kind === "sql") {
        given += new TextEncoder().encode(part.text).length;
        continue;
      }
      assert.ok(
        part.data.length < 1024 + 2000,
        "a piece is about pieceBytes, a row more at most",
      );
      if (part.data.length > 0) {
        assert.equal(part.data.at(-1), 10, "whole rows");
      }
      given += part.data.length + (part.first ? part.statement.length + 1 : 0);
      assert.ok(
        pulled.bytes - given < 1024 + 2000 + 2 * chunk,
        `${pulled.bytes - given} read ahead`,
      );
    }
  });

  test("a file cut short, cut inside a table's rows or not a backup is refused", async () => {
    const refused = (bytes: Uint8Array) => collect(dumpParts(chunked(bytes, 7)));
    await assert.rejects(
      refused(dump.subarray(0, dump.length - 3)),
      /cut short/,
    );
    const inRows = new TextEncoder().encode(
      `${BACKUP_HEADER}\nCOPY public."a" ("id") FROM stdin;\n1\nCOMMIT;\n`,
    );
    await assert.rejects(refused(inRows), /cut short inside a table's rows/);
    await assert.rejects(
      refused(new TextEncoder().encode("SELECT 1;\n")),
      /not a Switchyard backup/,
    );
    await assert.rejects(refused(new Uint8Array(0)), /not a Switchyard backup/);
  });
});
