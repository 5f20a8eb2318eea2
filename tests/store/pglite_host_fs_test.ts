/**
 * The embedded store's seeks to a file's end (src/store/pglite_host_fs.ts):
 * the size read by the file's path while that path names the descriptor's
 * own file, the descriptor asked otherwise; and a real store that extends,
 * truncates and reopens its relations with those seeks.
 */
import assert from "node:assert/strict";
import {
  appendFileSync,
  closeSync,
  mkdtempSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import {
  type EmscriptenModule,
  sizeSeeksByPath,
  type Stream,
} from "../../src/store/pglite_host_fs.ts";
import { openPglite } from "../../src/store/pglite_driver.ts";

const FILE_MODE = 0o100644;
const DIR_MODE = 0o040755;
const SEEK_SET = 0;
const SEEK_END = 2;

/** A module whose own seek says it was asked (the descriptor's fstat), and each file's host path. */
function fakeModule(paths: Map<unknown, string>) {
  const asked: number[] = [];
  const mod: EmscriptenModule = {
    NODEFS: {
      stream_ops: {
        llseek: (stream, offset, whence) => {
          asked.push(whence);
          return whence === SEEK_END ? offset + statSync(paths.get(stream.node)!).size : offset;
        },
      },
      realPath: (node) => paths.get(node)!,
    },
    FS: {
      ErrnoError: class extends Error {
        constructor(readonly errno: number) {
          super(`errno ${errno}`);
        }
      },
      isFile: (mode) => (mode & 0o170000) === 0o100000,
    },
  };
  return { mod, asked };
}

/** The host's stat, as the runtime's own would answer it. */
const hostStat = (path: string) => {
  const { size, dev, ino } = statSync(path);
  return { size, dev, ino };
};

describe("seeks to a file's end in the embedded store's file system", () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-host-fs-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A file of `bytes` bytes open on a stream of a module whose seeks are sized by path. */
  const sizedFile = (name: string, bytes: number) => {
    const path = join(dir, name);
    writeFileSync(path, new Uint8Array(bytes));
    const node = { mode: FILE_MODE };
    const { mod, asked } = fakeModule(new Map([[node, path]]));
    sizeSeeksByPath(mod, hostStat);
    const stream: Stream = { nfd: openSync(path, "r+"), node };
    const seek = (offset: number, whence: number) =>
      mod.NODEFS.stream_ops.llseek(stream, offset, whence);
    return { path, asked, seek, close: () => closeSync(stream.nfd!) };
  };

  test("read the size by path, as it is at each seek, while the path names the same file", () => {
    const { path, asked, seek, close } = sizedFile("relation", 8192);
    try {
      assert.equal(seek(0, SEEK_END), 8192);
      appendFileSync(path, new Uint8Array(8192));
      assert.equal(seek(0, SEEK_END), 16384);
      assert.equal(seek(-8192, SEEK_END), 8192);
      assert.deepEqual(asked, [], "the descriptor was asked");
      assert.throws(() => seek(-16385, SEEK_END), /errno 28/);
      // Any other seek is the module's own.
      assert.equal(seek(5, SEEK_SET), 5);
      assert.deepEqual(asked, [SEEK_SET]);
    } finally {
      close();
    }
  });

  test("ask the descriptor once the path names another file, or none", () => {
    const { path, asked, seek, close } = sizedFile("replaced", 100);
    try {
      assert.equal(seek(0, SEEK_END), 100);
      // Another file renamed over the path: the descriptor still holds the first one.
      writeFileSync(join(dir, "other"), new Uint8Array(300));
      renameSync(join(dir, "other"), path);
      seek(0, SEEK_END);
      assert.deepEqual(asked, [SEEK_END], "the path's other file was taken for the descriptor's");
      unlinkSync(path);
      assert.throws(() => seek(0, SEEK_END));
      assert.deepEqual(asked, [SEEK_END, SEEK_END]);
    } finally {
      close();
    }
  });

  test("leave directories, streams without a descriptor and runtimes without a cheaper stat alone", () => {
    const node = { mode: DIR_MODE };
    const { mod, asked } = fakeModule(new Map([[node, dir]]));
    const own = mod.NODEFS.stream_ops.llseek;
    sizeSeeksByPath(mod, null);
    assert.equal(mod.NODEFS.stream_ops.llseek, own);
    sizeSeeksByPath(mod, () => assert.fail("a directory is not sized by path"));
    mod.NODEFS.stream_ops.llseek({ node }, 0, SEEK_SET);
    mod.NODEFS.stream_ops.llseek({ node: { mode: FILE_MODE } }, 0, SEEK_SET);
    assert.deepEqual(asked, [SEEK_SET, SEEK_SET]);
  });

  test("a store on disk grows, shrinks and reopens with its relations sized this way", async () => {
    const path = join(dir, "store");
    let db = await openPglite(path);
    try {
      await db.exec("CREATE TABLE t (id int PRIMARY KEY, pad text)");
      await db.query(
        "INSERT INTO t SELECT g, repeat('x', 500) FROM generate_series(1, 5000) AS g",
      );
      await db.exec("DELETE FROM t WHERE id > 100");
      // The emptied pages at the end are cut off the file: it shrinks.
      await db.exec("VACUUM t");
      await db.query("INSERT INTO t SELECT g, 'y' FROM generate_series(101, 200) AS g");
    } finally {
      await db.close();
    }
    db = await openPglite(path);
    try {
      const rows = await db.query<{ n: number; small: number }>(
        "SELECT count(*)::int AS n, count(*) FILTER (WHERE pad = 'y')::int AS small FROM t",
      );
      assert.deepEqual(rows, [{ n: 200, small: 100 }]);
    } finally {
      await db.close();
    }
  });
});
