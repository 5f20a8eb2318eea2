/**
 * Names that print as themselves: control characters (C0, DEL, C1), the
 * Unicode line and paragraph separators and the bidirectional formatting
 * characters are refused, each named by its code point and place; blank
 * names (white space and invisible format characters only) too. Printable
 * text of any script, emoji sequences included, is a name.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { codePointLabel, nameProblem } from "../../src/core/operator_text.ts";

describe("nameProblem", () => {
  test("printable names of any script are names", () => {
    for (
      const name of [
        "ada",
        "Ada Lovelace",
        "Zoë",
        "محمد",
        "שלום",
        "李小龙",
        "👨‍👩‍👧 family",
        "a\u00a0b",
        "x".repeat(500),
      ]
    ) {
      assert.equal(nameProblem(name), null, name);
    }
  });

  test("every C0 and C1 control and DEL is refused at its place", () => {
    const controls = [
      ...Array.from({ length: 0x20 }, (_, i) => i),
      0x7f,
      ...Array.from({ length: 0x20 }, (_, i) => 0x80 + i),
    ];
    for (const cp of controls) {
      const found = nameProblem(`ab${String.fromCodePoint(cp)}c`);
      assert.deepEqual(found, {
        problem: "control characters are not allowed",
        character: { code: codePointLabel(cp), at: 3 },
      }, codePointLabel(cp));
    }
    assert.deepEqual(nameProblem("😀\u001b[31mred")?.character, {
      code: "U+001B",
      at: 2,
    });
  });

  test("bidirectional overrides, embeddings, isolates and marks are refused", () => {
    for (
      const cp of [
        0x202a,
        0x202b,
        0x202c,
        0x202d,
        0x202e,
        0x2066,
        0x2067,
        0x2068,
        0x2069,
      ]
    ) {
      assert.equal(
        nameProblem(`ada${String.fromCodePoint(cp)}gpj.exe`)?.problem,
        "bidirectional formatting characters are not allowed",
      );
    }
    for (const cp of [0x200e, 0x200f, 0x061c]) {
      assert.deepEqual(nameProblem(`x${String.fromCodePoint(cp)}`), {
        problem: "bidirectional formatting characters are not allowed",
        character: { code: codePointLabel(cp), at: 2 },
      });
    }
  });

  test("line and paragraph separators are refused", () => {
    for (const cp of [0x2028, 0x2029]) {
      assert.equal(
        nameProblem(`a${String.fromCodePoint(cp)}b`)?.problem,
        "line and paragraph separators are not allowed",
      );
    }
  });

  test("a name of only white space or invisible characters is blank", () => {
    for (
      const name of [
        "",
        " ",
        "   ",
        "\u3000",
        "\u00a0",
        "\u200b",
        "\ufeff \u200d",
      ]
    ) {
      assert.deepEqual(
        nameProblem(name),
        { problem: "must not be blank" },
        JSON.stringify(name),
      );
    }
  });
});
