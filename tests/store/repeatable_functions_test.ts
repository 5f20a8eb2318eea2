/**
 * The functions a turn runs are defined once each, in their current version,
 * by the repeatable files of migrations/functions/, applied after the numbered
 * migrations when their content changes (migrate.ts). A database made fresh
 * and one migrated by the runner of before (numbered migrations only, the
 * files as they were) and then by this one end with the same functions, and
 * every function is defined by exactly one file.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import type { Db } from "../../src/store/db.ts";
import { checksum, migrate, MIGRATIONS_TABLE } from "../../src/store/migrate.ts";
import { type Migration, MIGRATIONS, REPEATABLES } from "../../src/store/migrations.ts";
import { functionDefinitions } from "../support/db_dump.ts";
import { storesUnderTest } from "../support/databases.ts";

const FUNCTIONS_DIR = new URL("../../migrations/functions/", import.meta.url);

/** The runner as it was before repeatables: the numbered migrations not yet applied, in order. */
async function migrateAsBefore(db: Db, migrations: readonly Migration[]): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.exec(MIGRATIONS_TABLE);
    const rows = await tx.query<{ version: number }>("SELECT version FROM schema_migrations");
    const applied = new Set(rows.map((r) => r.version));
    for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
      if (applied.has(m.version)) continue;
      await tx.exec(m.sql);
      await tx.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [
        m.version,
        m.name,
      ]);
    }
  });
}

/** An empty database again, on the same connection (cheaper than a new one per case). */
async function wipe(db: Db): Promise<void> {
  await db.exec("DROP SCHEMA public CASCADE; CREATE SCHEMA public;");
}

/** The signatures of the functions `sql` creates or replaces, run in a transaction of its own. */
async function definedBy(db: Db, sql: string): Promise<string[]> {
  return await db.transaction(async (tx) => {
    await tx.exec(sql);
    const rows = await tx.query<{ signature: string }>(
      `SELECT p.oid::regprocedure::text AS signature FROM pg_proc p
       WHERE p.proname LIKE 'switchyard\\_%'
         AND p.xmin::text = (txid_current() % 4294967296)::text
       ORDER BY 1`,
    );
    return rows.map((r) => r.signature);
  });
}

test("every file of migrations/functions/ is a repeatable, carried as migrations.ts imports it", () => {
  const files = readdirSync(FUNCTIONS_DIR).filter((f) => f.endsWith(".sql")).sort();
  assert.deepEqual(
    REPEATABLES.map((r) => `${r.name.replace(/^functions\//, "")}.sql`).sort(),
    files,
  );
  for (const r of REPEATABLES) {
    const text = readFileSync(new URL(`${r.name.replace(/^functions\//, "")}.sql`, FUNCTIONS_DIR));
    assert.equal(r.sql, new TextDecoder().decode(text), r.name);
  }
});

for (const store of storesUnderTest(process.env)) {
  describe(`repeatable functions on ${store.name}`, () => {
    let db: Db;
    let opened: Awaited<ReturnType<typeof store.open>>;
    let fresh: Record<string, string>;
    before(async () => {
      opened = await store.open();
      db = opened.db;
      const applied = await migrate(db);
      assert.deepEqual(applied, [
        ...MIGRATIONS.map((m) => m.name),
        ...REPEATABLES.map((r) => r.name),
      ]);
      fresh = await functionDefinitions(db);
    });
    after(() => opened.dispose());

    test("migrated again, nothing is applied", async () => {
      assert.deepEqual(await migrate(db), []);
      assert.deepEqual(await functionDefinitions(db), fresh);
    });

    test("each function has its definition in exactly one file, and none the migrations dropped comes back", async () => {
      const owners = new Map<string, string[]>();
      for (const r of REPEATABLES) {
        for (const signature of await definedBy(db, r.sql)) {
          owners.set(signature, [...(owners.get(signature) ?? []), r.name]);
        }
      }
      for (const signature of Object.keys(fresh)) {
        assert.equal(owners.get(signature)?.length, 1, `${signature}: ${owners.get(signature)}`);
      }
      assert.deepEqual([...owners.keys()].sort(), Object.keys(fresh).sort());
      assert.deepEqual(await functionDefinitions(db), fresh, "replaying the files changes nothing");

      // What the numbered migrations leave is a part of what the files define, and a
      // function they drop for good is not made again.
      await wipe(db);
      await migrateAsBefore(db, MIGRATIONS);
      const numbered = await functionDefinitions(db);
      for (const signature of Object.keys(numbered)) {
        assert.ok(owners.has(signature), `${signature} is in a file of migrations/functions/`);
      }
      const dropped = MIGRATIONS.flatMap((m) =>
        [...m.sql.matchAll(/DROP FUNCTION (?:IF EXISTS )?(switchyard_\w+)\s*\(([^)]*)\)/g)]
          .map((d) => `${d[1]}(${d[2].split(",").map((a) => a.trim()).join(",")})`)
      );
      assert.ok(dropped.length > 0, "the migrations drop functions (006)");
      for (const signature of dropped) {
        const [name, args] = signature.split("(");
        const gone = !Object.keys(numbered).some((s) =>
          s.startsWith(`${name}(`) && s.endsWith(args)
        );
        if (gone) assert.ok(!(signature in fresh), `${signature} was dropped and stays dropped`);
      }
      await wipe(db);
      await migrate(db);
    });

    for (const upTo of [4, 7, 10, 14, 15]) {
      test(`a database migrated to ${upTo} as before, then by this runner, has the fresh one's functions`, async () => {
        await wipe(db);
        await migrateAsBefore(db, MIGRATIONS.filter((m) => m.version <= upTo));
        const applied = await migrate(db);
        assert.deepEqual(applied, [
          ...MIGRATIONS.filter((m) => m.version > upTo).map((m) => m.name),
          ...REPEATABLES.map((r) => r.name),
        ]);
        assert.deepEqual(await functionDefinitions(db), fresh);
        const recorded = await db.query<{ name: string; checksum: string }>(
          "SELECT name, checksum FROM schema_repeatables ORDER BY name",
        );
        assert.deepEqual(
          recorded,
          REPEATABLES.map((r) => ({ name: r.name, checksum: checksum(r.sql) }))
            .sort((a, b) => a.name < b.name ? -1 : 1),
        );
      });
    }

    test("a file whose content changed is applied again, the others are not", async () => {
      await wipe(db);
      await migrate(db);
      const changed = REPEATABLES.map((r) =>
        r.name === "functions/claims"
          ? { ...r, sql: r.sql.replace("RETURN answer;", "RETURN answer; -- changed") }
          : r
      );
      assert.notEqual(changed[4].sql, REPEATABLES[4].sql);
      assert.deepEqual(await migrate(db, MIGRATIONS, changed), ["functions/claims"]);
      const signature = "switchyard_claim_execute(jsonb)";
      assert.match((await functionDefinitions(db))[signature], /RETURN answer; -- changed/);
      assert.deepEqual(await migrate(db, MIGRATIONS, changed), []);
      // Back as it was: the content differs from the recorded one again.
      assert.deepEqual(await migrate(db), ["functions/claims"]);
      assert.deepEqual(await functionDefinitions(db), fresh);
    });

    test("a database a newer version migrated keeps its functions", async () => {
      await wipe(db);
      await migrate(db);
      await db.query("INSERT INTO schema_migrations (version, name) VALUES (9999, 'newer')");
      const older = REPEATABLES.map((r) =>
        r.name === "functions/claims"
          ? { ...r, sql: r.sql.replace("RETURN answer;", "RETURN answer; -- older") }
          : r
      );
      assert.deepEqual(await migrate(db, MIGRATIONS, older), []);
      assert.deepEqual(await functionDefinitions(db), fresh);
      await db.query("DELETE FROM schema_migrations WHERE version = 9999");
      assert.deepEqual(await migrate(db), []);
    });
  });
}
