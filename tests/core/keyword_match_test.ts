import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { codePointLength, words } from "../../src/core/words.ts";
import {
  codePointMask,
  isTypoOf,
  maskDistanceBound,
  osaDistance,
  typoAllowance,
} from "../../src/core/typo_distance.ts";
import { matchKeyword } from "../../src/core/keyword_match.ts";

describe("words", () => {
  const cases: [string, string[]][] = [
    ["Please REVIEW this", ["please", "review", "this"]],
    ["fix src/auth.ts, now!", ["fix", "src", "auth", "ts", "now"]],
    ["snake_case and kebab-case", ["snake", "case", "and", "kebab", "case"]],
    ["Überprüfe die Änderung", ["überprüfe", "die", "änderung"]],
    ["коммит и ревью", ["коммит", "и", "ревью"]],
    ["レビュー、お願い", ["レビュー", "お願い"]],
    ["v2 release 10x", ["v2", "release", "10x"]],
    ["cafe\u0301 ok", ["café", "ok"]],
    ["   ", []],
  ];
  for (const [text, expected] of cases) {
    test(`splits ${JSON.stringify(text)}`, () => assert.deepEqual(words(text), expected));
  }
  test("counts code points, not UTF-16 units", () => {
    assert.equal(codePointLength("a😀b"), 3);
    assert.equal(codePointLength(""), 0);
  });
});

describe("optimal string alignment distance", () => {
  const cases: [string, string, number][] = [
    ["review", "review", 0],
    ["review", "reveiw", 1], // adjacent transposition
    ["review", "reviw", 1], // deletion
    ["review", "rewiev", 2],
    ["deploy", "depoly", 1],
    ["ca", "abc", 3], // OSA, not full Damerau (which gives 2)
    ["", "abc", 3],
    ["refactor", "refactro", 1],
    ["kitten", "sitting", 3],
    ["ревью", "рэвью", 1],
  ];
  for (const [a, b, d] of cases) {
    test(`${a} ↔ ${b} = ${d}`, () => {
      assert.equal(osaDistance(a, b), d);
      assert.equal(osaDistance(b, a), d);
    });
  }
});

describe("the code point mask bound on the distance", () => {
  const pairs: [string, string][] = [
    ["review", "reveiw"],
    ["review", "rewiev"],
    ["ca", "abc"],
    ["", "abc"],
    ["kitten", "sitting"],
    ["november", "deploya"],
    ["summarize", "smarise"],
    ["aaaa", "bbbb"],
    ["ревью", "рэвью"],
    ["a😀b", "ab😀"],
    ["x\ud800y", "xy"],
    ["revi\u00e9w", "review"],
  ];
  for (const [a, b] of pairs) {
    test(`never exceeds the distance: ${a} ↔ ${b}`, () => {
      const bound = maskDistanceBound(codePointMask(a), codePointMask(b));
      assert.ok(bound <= osaDistance(a, b), `bound ${bound}, distance ${osaDistance(a, b)}`);
      assert.equal(maskDistanceBound(codePointMask(b), codePointMask(a)), bound);
    });
  }
  test("counts the code points one word has and the other lacks", () => {
    assert.equal(maskDistanceBound(codePointMask("review"), codePointMask("reveiw")), 0);
    assert.equal(maskDistanceBound(codePointMask("deploy"), codePointMask("deplxz")), 2);
    assert.equal(maskDistanceBound(codePointMask("abc"), codePointMask("")), 3);
  });
});

describe("typo tolerance", () => {
  test("allowance follows keyword length in code points", () => {
    assert.deepEqual(
      ["edit", "plan", "fixit", "deploy", "refactor", "summarize", "documentation"].map(
        typoAllowance,
      ),
      [0, 0, 1, 1, 1, 2, 2],
    );
  });
  const cases: [string, string, boolean][] = [
    ["reveiw", "review", true],
    ["revie", "review", false], // contained in the keyword
    ["reviw", "review", true], // one deletion, not a substring
    ["reviews", "review", false], // contains the keyword
    ["edti", "edit", false], // keyword under 5 characters
    ["sumarise", "summarize", true], // 2 edits for 9+ characters
    ["smarise", "summarize", false], // 3 edits
    ["depoly", "deploy", true],
    ["dpoly", "deploy", false], // 2 edits for a 6-character keyword
    ["review", "review", false], // equal is exact, not a typo
  ];
  for (const [word, kw, expected] of cases) {
    test(`'${word}' ${expected ? "is" : "is not"} a typo of '${kw}'`, () => {
      assert.equal(isTypoOf(word, kw), expected);
    });
  }
});

describe("keyword matching", () => {
  const prompt = (text: string) => words(text);
  test("whole words only, case-insensitive", () => {
    assert.equal(matchKeyword(prompt("Please REVIEW it"), "review", false), "exact");
    assert.equal(matchKeyword(prompt("preview it"), "review", false), null);
    assert.equal(matchKeyword(prompt("previewing"), "view", true), null);
  });
  test("a multi-word keyword matches the same words in sequence", () => {
    assert.equal(matchKeyword(prompt("please code-review this"), "code review", false), "exact");
    assert.equal(matchKeyword(prompt("review the code"), "code review", false), null);
    assert.equal(matchKeyword(prompt("code and review"), "code review", false), null);
  });
  test("typo words in a sequence make it a typo match", () => {
    assert.equal(matchKeyword(prompt("pull reqeust please"), "pull request", true), "typo");
    assert.equal(matchKeyword(prompt("pull reqeust please"), "pull request", false), null);
  });
  test("an exact occurrence anywhere beats a typo occurrence", () => {
    assert.equal(matchKeyword(prompt("reveiw then review"), "review", true), "exact");
    assert.equal(matchKeyword(prompt("reveiw then stop"), "review", true), "typo");
  });
  test("every word occurring somewhere is not enough: they must be in sequence", () => {
    assert.equal(matchKeyword(prompt("reqeust then pull"), "pull request", true), null);
    assert.equal(matchKeyword(prompt("request then pull"), "pull request", false), null);
    assert.equal(matchKeyword(prompt("pul reqeust, pull reqeust"), "pull request", true), "typo");
    assert.equal(matchKeyword(prompt("pull reqeust, pull request"), "pull request", true), "exact");
  });
  test("a repeated word is compared once and still found at each position", () => {
    assert.equal(matchKeyword(prompt("code code review"), "code review", false), "exact");
    assert.equal(matchKeyword(prompt("depoly and depoly"), "deploy", true), "typo");
  });
  test("a keyword with no letters or digits never matches", () => {
    assert.equal(matchKeyword(prompt("a -- b"), "--", true), null);
  });
});
