import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type Command, parseCommandLine, USAGE } from "../../src/command_line.ts";

describe("the service's command line", () => {
  const cases: [string[], Command][] = [
    [[], { kind: "serve", args: [] }],
    [["serve"], { kind: "serve", args: [] }],
    [["--config", "a.toml"], { kind: "serve", args: ["--config", "a.toml"] }],
    [["--config=a.toml"], { kind: "serve", args: ["--config=a.toml"] }],
    [["serve", "--config", "a.toml"], { kind: "serve", args: ["--config", "a.toml"] }],
    [["--help"], { kind: "help" }],
    [["-h"], { kind: "help" }],
    [["help"], { kind: "help" }],
    [["serve", "--help"], { kind: "help" }],
    [["backup", "x.sql", "--help"], { kind: "help" }],
    [["--version"], { kind: "version" }],
    [["-V"], { kind: "version" }],
    [["migrate"], { kind: "migrate", args: [] }],
    [["migrate", "--config=b.toml"], { kind: "migrate", args: ["--config=b.toml"] }],
    [["backup", "x.sql"], { kind: "backup", args: ["backup", "x.sql"] }],
    [["restore", "x.sql", "--force"], { kind: "restore", args: ["restore", "x.sql", "--force"] }],
    [["restore", "x.sql", "--config", "c.toml"], {
      kind: "restore",
      args: ["restore", "x.sql", "--config", "c.toml"],
    }],
  ];
  for (const [args, expected] of cases) {
    test(`reads ${JSON.stringify(args)} as ${expected.kind}`, () => {
      assert.deepEqual(parseCommandLine(args), expected);
    });
  }

  const refused: [string[], string][] = [
    [["--port", "8080"], 'unknown argument "--port"'],
    [["bogus"], 'unknown command "bogus"'],
    [["serve", "extra"], 'unknown argument "extra"'],
    [["--config"], "--config expects a file path"],
    [["migrate", "--force"], 'unknown argument "--force"'],
    [["backup"], "backup expects a file: backup <file>"],
    [["backup", "x.sql", "--force"], 'unknown argument "--force"'],
    [["restore", "--force"], "restore expects a file: restore <file>"],
    [["version", "x"], 'unknown command "version"'],
  ];
  for (const [args, message] of refused) {
    test(`refuses ${JSON.stringify(args)}: ${message}`, () => {
      assert.deepEqual(parseCommandLine(args), { kind: "usage_error", message });
    });
  }

  test("admin is the command-line client's, and the usage says how to reach it", () => {
    const admin = parseCommandLine(["admin", "users", "list"]);
    assert.equal(admin.kind, "usage_error");
    assert.match(
      (admin as { message: string }).message,
      /command-line client.*deno task cli admin/,
    );
    for (const word of ["serve", "migrate", "backup <file>", "restore <file>", "admin users"]) {
      assert.ok(USAGE.includes(word), word);
    }
    assert.match(USAGE, /SWITCHYARD_OPERATOR_TOKEN/);
  });
});
