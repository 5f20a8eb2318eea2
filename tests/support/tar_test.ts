/**
 * The test harness's tar reader: directories and files come out as archived; entries it does not
 * understand, or that would land outside the target, are refused.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { extractTar } from "./tar.ts";

interface Entry {
  name: string;
  type: string;
  body?: string;
  mode?: number;
}

/** A GNU-style archive as `tar` writes it (magic "ustar  "), without checksums: none are read. */
function archive(entries: Entry[]): Uint8Array {
  const blocks: Uint8Array[] = [];
  const put = (header: Uint8Array, at: number, value: string) =>
    header.set(new TextEncoder().encode(value), at);
  for (const entry of entries) {
    const body = new TextEncoder().encode(entry.body ?? "");
    const header = new Uint8Array(512);
    put(header, 0, entry.name);
    put(header, 100, `${(entry.mode ?? 0o644).toString(8).padStart(7, "0")}\0`);
    put(header, 124, `${body.length.toString(8).padStart(11, "0")}\0`);
    put(header, 156, entry.type);
    put(header, 257, "ustar  \0");
    const padded = new Uint8Array(Math.ceil(body.length / 512) * 512);
    padded.set(body);
    blocks.push(header, padded);
  }
  blocks.push(new Uint8Array(1024));
  const out = new Uint8Array(blocks.reduce((n, b) => n + b.length, 0));
  let offset = 0;
  for (const block of blocks) {
    out.set(block, offset);
    offset += block.length;
  }
  return out;
}

async function inScratch(run: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "tar-test-"));
  try {
    await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe("extractTar", () => {
  test("writes directories and files with their modes, and lists the files", () =>
    inScratch(async (dir) => {
      const big = "x".repeat(700); // spans two blocks
      const written = await extractTar(
        archive([
          { name: "fonts/", type: "5", mode: 0o755 },
          { name: "fonts/a.txt", type: "0", body: "alpha" },
          { name: "bin/run", type: "0", body: big, mode: 0o755 },
        ]),
        dir,
      );
      assert.deepEqual(written, [join(dir, "fonts/a.txt"), join(dir, "bin/run")]);
      assert.equal(await readFile(join(dir, "fonts/a.txt"), "utf8"), "alpha");
      assert.equal(await readFile(join(dir, "bin/run"), "utf8"), big);
      assert.equal((await stat(join(dir, "bin/run"))).mode & 0o777, 0o755);
    }));

  test("refuses a path that leaves the target, and a symbolic link", () =>
    inScratch(async (dir) => {
      await assert.rejects(
        extractTar(archive([{ name: "../escape", type: "0", body: "no" }]), join(dir, "t")),
        new Error(`tar entry "../escape" leaves the target directory`),
      );
      await assert.rejects(
        extractTar(archive([{ name: "link", type: "2" }]), dir),
        new Error(`tar entry "link": type "2" is not supported`),
      );
    }));
});
