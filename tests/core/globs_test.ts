import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  compileGlob,
  isValidGlob,
  pathList,
  privacyMatcher,
  requiredLiterals,
  routingMatcher,
  routingMatchesAny,
} from "../../src/core/globs.ts";

describe("gitignore-style globs", () => {
  const cases: [string, string, boolean][] = [
    ["src/*.ts", "src/a.ts", true],
    ["src/*.ts", "src/auth/x.ts", false], // * stays within a segment
    ["src/*", "src/auth/x.ts", false],
    ["src/**", "src/auth/x.ts", true], // ** spans segments
    ["src/**/*.ts", "src/a.ts", true],
    ["src/**/*.ts", "src/auth/deep/x.ts", true],
    ["**/*.pem", "keys/prod/server.pem", true],
    [".env", ".env", true],
    [".env", "config/.env", true], // no slash: file name at any depth
    ["*.pem", "a/b/key.pem", true],
    ["*.pem", "a/b/key.pem.txt", false],
    ["src/**", "src/.hidden/x", true], // dotfiles match
    ["*", ".env", true],
    ["secrets/**", "secrets/.npmrc", true],
    ["secrets/**", "app/secrets/x", false], // a slash anchors to the root
    ["/src/a.ts", "src/a.ts", true], // leading slash anchors
    ["/a.ts", "lib/a.ts", false],
    ["secrets/", "secrets/key", true], // trailing slash: a directory
    ["secrets/", "app/secrets/key", true],
    ["docs/*.{md,txt}", "docs/a.txt", true],
    ["!keep.txt", "keep.txt", false], // no negation
    ["!keep.txt", "!keep.txt", true],
  ];
  for (const [glob, path, expected] of cases) {
    test(`'${glob}' ${expected ? "matches" : "does not match"} '${path}'`, () => {
      const m = compileGlob(glob);
      assert.ok(m !== null);
      assert.equal(m(path), expected);
    });
  }

  test("invalid globs are reported", () => {
    for (const bad of ["", "/", "src/[abc", "{a,b", "(x", "a]"]) {
      assert.equal(isValidGlob(bad), false, bad);
    }
    assert.equal(isValidGlob("src/[ab]c.ts"), true);
  });

  test("an invalid privacy glob matches everything (fail closed)", () => {
    const m = privacyMatcher(["secrets/**", "[broken"]);
    assert.equal(m("anything/at/all.ts"), true);
    assert.equal(privacyMatcher(["secrets/**"])("src/a.ts"), false);
    assert.equal(privacyMatcher([])("src/a.ts"), false);
  });

  test("an invalid routing glob matches nothing", () => {
    assert.equal(routingMatcher(["[broken"])("anything"), false);
    assert.equal(routingMatcher(["[broken", "src/**"])("src/a.ts"), true);
  });

  test("plain globs name the letter and digit runs a match must contain", () => {
    assert.deepEqual(requiredLiterals("src/**/*.ts"), ["src", "ts"]);
    assert.deepEqual(requiredLiterals("area5/**"), ["area5"]);
    assert.deepEqual(requiredLiterals("docs/v1.2/*-draft_md"), ["docs", "v1", "2", "draft", "md"]);
    assert.deepEqual(requiredLiterals("**/*"), []);
    for (const other of ["docs/*.{md,txt}", "src/[ab].ts", "@(a|b).ts", "x?.ts", "a\\*b", "é.md"]) {
      assert.deepEqual(requiredLiterals(other), [], other);
    }
  });

  test("matching a path list agrees with matching path by path", () => {
    const lists = [
      [],
      ["src/a.ts", "docs/x.md"],
      ["area5/deep/x", "b.ext5"],
      ["src/module1/file1.ts", ".env", "docs/5/a.md"],
      ["secrets", "a/secrets/b"],
    ];
    const globs = [
      ["src/**/*.ts"],
      ["area5/**", "*.ext5", "docs/5/*.md"],
      ["*.md", "[broken"],
      ["docs/*.{md,txt}"],
      ["secrets/"],
      ["ts"],
      ["src/a.ts", "/src/a.ts"],
    ];
    for (const paths of lists) {
      for (const g of globs) {
        assert.equal(
          routingMatchesAny(g, pathList(paths)),
          paths.some(routingMatcher(g)),
          `${g} on ${paths}`,
        );
      }
    }
  });
});
