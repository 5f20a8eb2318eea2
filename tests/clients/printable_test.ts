/**
 * What the command line prints of stored text: every character a terminal
 * would obey written as its escape, everything else as it is.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { printable, printableJson } from "../../clients/typescript/src/cli/printable.ts";
import { errorReport } from "../../clients/typescript/src/cli/error_report.ts";
import { SwitchyardError } from "../../clients/typescript/src/errors.ts";

describe("printable", () => {
  test("controls, separators and bidi formatting become escapes", () => {
    const cases: [string, string][] = [
      ["\u001b[31mred\u001b[0m", "\\x1b[31mred\\x1b[0m"],
      ["a\nb\rc\td", "a\\nb\\rc\\td"],
      ["\u0000\u0007\u007f\u0080\u0085\u009b\u009f", "\\x00\\x07\\x7f\\x80\\x85\\x9b\\x9f"],
      ["ada\u202egpj.exe", "ada\\u202egpj.exe"],
      [
        "\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069",
        "\\u202a\\u202b\\u202c\\u202d\\u2066\\u2067\\u2068\\u2069",
      ],
      ["\u200e\u200f\u061c\u2028\u2029", "\\u200e\\u200f\\u061c\\u2028\\u2029"],
    ];
    for (const [raw, shown] of cases) assert.equal(printable(raw), shown, JSON.stringify(raw));
  });

  test("printable text of any script is left as it is", () => {
    for (const text of ["ada", "Zoë Ångström", "李小龙", "محمد", "👨‍👩‍👧", "C:\\dir", "a\u00a0b"]) {
      assert.equal(printable(text), text);
    }
  });

  test("JSON output keeps every string exact and prints no control", () => {
    const value = { name: "\u001b[2J\u0085ada\u202e\u2028x\n", n: 1 };
    const text = printableJson(value);
    assert.deepEqual(JSON.parse(text), value);
    const layout = text.replace(/\n {0,2}/g, "");
    assert.doesNotMatch(
      layout,
      /[\p{Cc}\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u,
    );
    assert.match(text, /"\\u001b\[2J\\u0085ada\\u202e\\u2028x\\n"/);
  });

  test("an error message from the service is shown escaped", () => {
    const error = new SwitchyardError(
      "invalid_request",
      "invalid request body: x\u001b[2J\nforged",
      422,
    );
    assert.equal(
      errorReport(error).split("\n")[0],
      "error: invalid_request: invalid request body: x\\x1b[2J\\nforged",
    );
  });
});
