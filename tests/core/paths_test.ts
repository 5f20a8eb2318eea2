import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { diffHeaders, normalisePath } from "../../src/core/paths.ts";
import { relevantPaths } from "../../src/core/relevant_paths.ts";
import { request } from "./fixtures.ts";

describe("path normalisation", () => {
  const cases: [string, string | null, string][] = [
    ["src/a.ts", null, "src/a.ts"],
    ["./src/a.ts", null, "src/a.ts"],
    ["src\\auth\\x.ts", null, "src/auth/x.ts"],
    ["src/../lib/./b.ts", null, "lib/b.ts"],
    ["src//a.ts/", null, "src/a.ts"],
    ["../outside.ts", null, "../outside.ts"],
    ["a/../../b", null, "../b"],
    ["/repo/src/a.ts", "/repo", "src/a.ts"],
    ["/repo/src/a.ts", "/repo/", "src/a.ts"],
    ["/repo/x/../src/a.ts", "/repo", "src/a.ts"],
    ["/repository/a.ts", "/repo", "/repository/a.ts"],
    ["/etc/passwd", "/repo", "/etc/passwd"],
    ["/../a", null, "/a"],
    ["C:\\work\\repo\\src\\a.ts", "C:\\work\\repo", "src/a.ts"],
    ["C:\\work\\other\\a.ts", "C:\\work\\repo", "C:/work/other/a.ts"],
    ["src/a.ts", "/repo", "src/a.ts"],
    // Paths already resolved are returned as they are; these sit on the edge.
    [".", null, ""],
    ["/", null, "/"],
    ["a/", null, "a"],
    ["..", null, ".."],
    ["a/.b/...", null, "a/.b/..."],
    ["/a/b", null, "/a/b"],
    ["C:/w/../x", null, "C:/x"],
  ];
  for (const [path, root, expected] of cases) {
    test(`${path} under ${root} → ${expected}`, () => {
      assert.equal(normalisePath(path, root), expected);
    });
  }
});

describe("diff headers", () => {
  test("reads a/ and b/ paths of every diff --git header", () => {
    const diff = [
      "diff --git a/src/a.ts b/src/a.ts",
      "index 1..2 100644",
      "--- a/src/a.ts",
      "+++ b/src/a.ts",
      "@@ -1 +1 @@",
      "-diff --git a/fake b/fake",
      "diff --git a/old name.txt b/new name.txt",
      "similarity index 90%",
      'diff --git "a/sp ace.md" "b/sp ace.md"',
      "diff --git a/dir with b/x.txt b/dir with b/x.txt",
    ].join("\n");
    assert.deepEqual(diffHeaders(diff), [
      { old_path: "src/a.ts", new_path: "src/a.ts" },
      { old_path: "old name.txt", new_path: "new name.txt" },
      { old_path: "sp ace.md", new_path: "sp ace.md" },
      { old_path: "dir with b/x.txt", new_path: "dir with b/x.txt" },
    ]);
  });
  test("no diff, no headers", () => {
    assert.deepEqual(diffHeaders(null), []);
    assert.deepEqual(diffHeaders(""), []);
    assert.deepEqual(diffHeaders("just text"), []);
  });
});

describe("relevant paths", () => {
  test("in the specified order, normalised, duplicates dropped", () => {
    const req = request({
      workspace: {
        root: "/repo",
        referenced_paths: ["src/b.ts", "./src/a.ts"],
        active_file: "/repo/src/a.ts",
        git_diff: "diff --git a/old.ts b/src/diffed.ts\n+x\ndiff --git a/src/b.ts b/src/b.ts\n",
      },
      attachments: {
        files: [{ path: "docs\\readme.md", content: "" }, { path: "src/b.ts", content: "" }],
        instructions: [],
      },
    });
    const tools = [
      { call_id: "c1", name: "read_file", arguments: { path: "lib/tool.ts" } },
      { call_id: "c2", name: "shell", arguments: { command: "ls" } },
      { call_id: "c3", name: "read_file", arguments: { path: "src/a.ts" } },
    ];
    assert.deepEqual(relevantPaths(req, tools), [
      "src/b.ts",
      "src/a.ts",
      "src/diffed.ts",
      "docs/readme.md",
      "lib/tool.ts",
    ]);
  });
});
