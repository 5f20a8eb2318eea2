/**
 * The embedded store's template data directory (src/store/pglite_template.ts):
 * made by the installed PGlite, the same as what PGlite's initdb makes, and
 * what a new store starts from.
 *
 * It cannot equal a fresh initdb byte for byte: initdb draws a random system
 * identifier and stamps times into pg_control, the WAL (with the checksums
 * over them) and the statistics file. Every other file must be identical, and
 * the two must agree on everything PostgreSQL reports about itself.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { PGlite } from "@electric-sql/pglite";
import { createPglite, START_PARAMS } from "../../src/store/pglite_driver.ts";
import {
  tarEntries,
  TEMPLATE_FILE,
  TEMPLATE_MANIFEST,
  type TemplateManifest,
  templateTar,
} from "../../src/store/pglite_template.ts";
import {
  initdbDataDir,
  installedPgliteVersion,
  sha256,
  topLevel,
} from "../../src/store/pglite_template_make.ts";

/** Files that hold the system identifier or a time (see above). */
const STAMPED = new Set([
  "global/pg_control",
  "pg_wal/000000010000000000000001",
  "pg_stat/pgstat.stat",
]);

const manifest = async () =>
  JSON.parse(await readFile(TEMPLATE_MANIFEST, "utf8")) as TemplateManifest;

const files = (tar: Uint8Array) =>
  new Map(
    [...tarEntries(tar)].map((e) => [e.name, e.directory ? null : e.data]),
  );

/** pg_control starts with the system identifier, a little-endian 64-bit integer. */
function systemIdentifier(tar: Uint8Array): string {
  const control = files(tar).get("global/pg_control")!;
  return new DataView(control.buffer, control.byteOffset).getBigUint64(0, true)
    .toString();
}

const rows = async (pg: PGlite, sql: string) =>
  JSON.stringify(
    (await pg.query(sql)).rows,
    (_, v) => typeof v === "bigint" ? String(v) : v,
  );

describe("the embedded store's template data directory", () => {
  test("was made by the installed PGlite (else run `deno task pglite:datadir`)", async () => {
    const made = await manifest();
    assert.equal(made.pglite, await installedPgliteVersion());
    assert.equal(
      sha256(await readFile(TEMPLATE_FILE)),
      made.sha256,
      "the manifest describes it",
    );
    const tar = await templateTar();
    assert.equal(tar.length, made.tarBytes);
    assert.deepEqual(made.topLevel, topLevel(tar));
  });

  describe("against a data directory made by initdb", () => {
    let fresh: Awaited<ReturnType<typeof initdbDataDir>>;
    let template: Uint8Array;
    let fromTemplate: PGlite;
    let dir: string;
    before(async () => {
      fresh = await initdbDataDir([...START_PARAMS]);
      template = await templateTar();
      dir = await mkdtemp(join(tmpdir(), "switchyard-template-"));
      fromTemplate = await createPglite(dir);
    });
    after(async () => {
      await fromTemplate?.close();
      await fresh?.pg.close();
      for (const made of [dir, fresh?.dir]) {
        if (made) await rm(made, { recursive: true, force: true });
      }
    });

    test("holds the same files, identical but for the stamped ones", () => {
      const [ours, theirs] = [files(template), files(fresh.tar)];
      assert.deepEqual([...ours.keys()].sort(), [...theirs.keys()].sort());
      const differing = [...ours].filter(([name, data]) =>
        data !== null && Buffer.compare(data, theirs.get(name)!) !== 0
      ).map(([name]) => name);
      assert.deepEqual(differing.filter((name) => !STAMPED.has(name)), []);
      assert.notEqual(systemIdentifier(template), systemIdentifier(fresh.tar));
    });

    const same = (what: string, sql: string) =>
      test(`reports the same ${what}`, async () => {
        const expected = await rows(fresh.pg, sql);
        assert.ok(expected.length > 2, `${sql} answers something`);
        assert.equal(await rows(fromTemplate, sql), expected);
      });

    same(
      "relations",
      "SELECT oid, relname, relnamespace, relkind FROM pg_class ORDER BY oid",
    );
    same("namespaces", "SELECT oid, nspname FROM pg_namespace ORDER BY oid");
    same(
      "functions",
      "SELECT oid, proname, pronamespace FROM pg_proc ORDER BY oid",
    );
    same(
      "types",
      "SELECT oid, typname, typnamespace FROM pg_type ORDER BY oid",
    );
    same(
      "databases, encodings and collations",
      `SELECT oid, datname, pg_encoding_to_char(encoding) AS encoding, datlocprovider,
              datcollate, datctype, datistemplate, datallowconn
       FROM pg_database ORDER BY oid`,
    );
    same(
      "settings",
      "SELECT name, setting, source FROM pg_settings ORDER BY name",
    );
    same(
      "configuration files",
      `SELECT f, pg_read_file(f) FROM unnest(ARRAY['PG_VERSION', 'postgresql.conf',
         'postgresql.auto.conf', 'pg_hba.conf', 'pg_ident.conf']) AS f`,
    );
    same("control data", "SELECT * FROM pg_control_init()");
    same(
      "version and data checksums",
      `SELECT pg_control_version, catalog_version_no, version(),
              current_setting('data_checksums') AS data_checksums
       FROM pg_control_system()`,
    );

    test("reports the same rows in every catalog table", async () => {
      const tables = (await fresh.pg.query<{ name: string }>(
        `SELECT relname AS name FROM pg_class
         WHERE relnamespace = 'pg_catalog'::regnamespace AND relkind = 'r' ORDER BY 1`,
      )).rows.map((r) => r.name);
      assert.ok(tables.length > 50, `${tables.length} catalog tables`);
      const digests = (pg: PGlite) =>
        rows(
          pg,
          tables.map((t) =>
            `SELECT '${t}' AS name, md5(coalesce(string_agg(r::text, ',' ORDER BY r::text), ''))
             FROM pg_catalog.${t} r`
          ).join(" UNION ALL ") + " ORDER BY name",
        );
      assert.equal(await digests(fromTemplate), await digests(fresh.pg));
    });
  });

  test("is where a new store starts, on disk and in memory, not initdb", async () => {
    const expected = systemIdentifier(await templateTar());
    const dir = await mkdtemp(join(tmpdir(), "switchyard-template-"));
    try {
      for (const path of [dir, "memory://"]) {
        const pg = await createPglite(path);
        const found = await pg.query<{ id: bigint }>(
          "SELECT system_identifier AS id FROM pg_control_system()",
        );
        await pg.close();
        assert.equal(String(found.rows[0].id), expected, path);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
