/**
 * `switchyard keys` and `switchyard admin users` driven as a person would,
 * against the real service (in process behind a real socket) with an
 * operator token set.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createTestApp, type TestApp } from "../support/app.ts";
import { type CliOptions, runCli } from "../support/cli_process.ts";
import { type Served, serveHandler } from "../support/serve_handler.ts";

const OPERATOR = "cli-operator-token-0123456789";
const KEY = /^sk-router-api01-[0-9a-f]{32}-[A-Za-z0-9]{64}\n$/;

let app: TestApp;
let served: Served;
let home: string;

before(async () => {
  app = await createTestApp({
    configure: (c) => void (c.auth.operatorToken = OPERATOR),
  });
  served = await serveHandler(app.handler);
  home = await mkdtemp(join(tmpdir(), "switchyard-cli-keys-"));
});
after(async () => {
  await served.close();
  await app.close();
  await rm(home, { recursive: true, force: true });
});

const cli = (args: string[], options: Partial<CliOptions> = {}) =>
  runCli(args, {
    ...options,
    env: { XDG_CONFIG_HOME: home, SWITCHYARD_URL: served.url, ...options.env },
  });
const operator = (args: string[]) =>
  cli(["admin", "users", ...args], {
    env: { SWITCHYARD_OPERATOR_TOKEN: OPERATOR },
  });

describe("switchyard admin and keys", () => {
  test("the operator adds a user, who signs in with the key, makes a second and revokes it", async () => {
    const added = await operator(["add", "ada"]);
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stdout, KEY);
    assert.match(
      added.stderr,
      /added user [0-9a-f-]{36} "ada": its API key is shown only now/,
    );
    const userId = /added user ([0-9a-f-]{36})/.exec(added.stderr)![1];

    const login = await cli(["login", "--api-key", added.stdout.trim()]);
    assert.equal(login.code, 0, login.stderr);
    assert.ok(login.stdout.includes(userId));

    const created = await cli([
      "keys",
      "create",
      "laptop",
      "--expires",
      "2030-01-01T00:00:00Z",
    ]);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, KEY);
    assert.match(
      created.stderr,
      /created key [0-9a-f-]{36} "laptop" \(expires 2030-01-01T00:00:00\.000Z\)/,
    );
    const keyId = /created key ([0-9a-f-]{36})/.exec(created.stderr)![1];

    const listed = await cli(["keys", "list"]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /initial .* active\n/);
    assert.match(
      listed.stdout,
      new RegExp(`${keyId}  laptop .* active until 2030`),
    );
    assert.equal(
      listed.stdout.includes(created.stdout.trim().slice(-64)),
      false,
      "no secret",
    );

    const revoked = await cli(["keys", "revoke", keyId]);
    assert.equal(revoked.code, 0, revoked.stderr);
    const json = await cli(["keys", "list", "--json"]);
    const keys = JSON.parse(json.stdout);
    assert.notEqual(
      keys.find((k: { key_id: string }) => k.key_id === keyId).revoked_at,
      null,
    );
    const refused = await cli(["login", "--api-key", created.stdout.trim()], {
      env: { XDG_CONFIG_HOME: join(home, "other") },
    });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /invalid_api_key/);

    const users = await operator(["list"]);
    assert.equal(users.code, 0, users.stderr);
    assert.match(
      users.stdout,
      new RegExp(`${userId}  ada  enabled  spent 0 today 0 this month`),
    );

    const budget = await operator([
      "budget",
      userId,
      "--daily",
      "5",
      "--monthly",
      "100.50",
    ]);
    assert.equal(budget.code, 0, budget.stderr);
    assert.match(budget.stdout, /budget 5\/day 100\.5\/month/);
    const disabled = await operator(["disable", userId]);
    assert.match(disabled.stdout, /ada {2}disabled/);
    const locked = await cli(["keys", "list"]);
    assert.equal(
      locked.code,
      1,
      "the token is refused while the user is disabled",
    );
    assert.match(locked.stderr, /token_revoked|invalid_api_key/);
    const enabled = await operator(["enable", userId]);
    assert.match(enabled.stdout, /ada {2}enabled/);
    assert.equal((await cli(["keys", "list"])).code, 0, "let back in");
  });

  test("without SWITCHYARD_OPERATOR_TOKEN, or with a wrong one, admin says what to set", async () => {
    const none = await cli(["admin", "users", "list"]);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /set SWITCHYARD_OPERATOR_TOKEN/);
    const wrong = await cli(["admin", "users", "list"], {
      env: { SWITCHYARD_OPERATOR_TOKEN: "not-the-operator-token" },
    });
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /invalid_token/);
    const bad = await operator(["budget", "x", "--daily", "five"]);
    assert.equal(bad.code, 2, "a flag value of the wrong shape is bad usage");
    assert.match(bad.stderr, /--daily expects US dollars/);
  });
});

describe("stored names are printed escaped", () => {
  test("a hostile user or key name stored before names were checked cannot forge a row or drive the terminal", async () => {
    const added = await operator(["add", "mallory"]);
    assert.equal(added.code, 0, added.stderr);
    const userId = /added user ([0-9a-f-]{36})/.exec(added.stderr)![1];
    // Written past the API, as a name stored before the service refused these could be.
    const forged =
      `\u001b[2J\u001b[32mmallory\nffffffff-0000-7000-8000-000000000000  root  enabled\r\u202egpj.exe\u0085`;
    await app.db.query("UPDATE users SET name = $1 WHERE id = $2", [forged, userId]);
    await app.db.query("UPDATE api_keys SET name = $1 WHERE user_id = $2", [forged, userId]);
    const escaped =
      "\\x1b[2J\\x1b[32mmallory\\nffffffff-0000-7000-8000-000000000000  root  enabled" +
      "\\r\\u202egpj.exe\\x85";
    const hostile = /[\p{Cc}\u202e]/u;

    const users = await operator(["list"]);
    assert.equal(users.code, 0, users.stderr);
    const rows = users.stdout.split("\n").filter(Boolean);
    const row = rows.find((line) => line.startsWith(userId));
    assert.ok(row !== undefined, users.stdout);
    assert.ok(row.includes(`${userId}  ${escaped}  enabled`), row);
    assert.equal(rows.filter((line) => line.includes("root  enabled")).length, 1, "no forged row");
    assert.ok(rows.every((line) => !hostile.test(line)), JSON.stringify(users.stdout));
    // --json keeps the stored name exactly, for scripts, in text safe to print.
    const jsonText = (await operator(["list", "--json"])).stdout;
    assert.doesNotMatch(jsonText.replace(/\n */g, ""), hostile);
    const json = JSON.parse(jsonText);
    assert.equal(json.find((u: { user_id: string }) => u.user_id === userId).name, forged);

    const home2 = join(home, "mallory");
    const login = await cli(["login", "--api-key", added.stdout.trim()], {
      env: { XDG_CONFIG_HOME: home2 },
    });
    assert.equal(login.code, 0, login.stderr);
    const keys = await cli(["keys", "list"], { env: { XDG_CONFIG_HOME: home2 } });
    assert.equal(keys.code, 0, keys.stderr);
    assert.ok(keys.stdout.includes(`  ${escaped}  created `), keys.stdout);
    const keyRows = keys.stdout.split("\n").filter(Boolean);
    assert.equal(keyRows.length, 1, "one key, one row");
    assert.doesNotMatch(keyRows[0], hostile);
  });
});

describe("exit status", () => {
  test("a command line that does not say what to do exits 2, as the help says; a failure exits 1", async () => {
    const added = await operator(["add", "usage"]);
    const env = { XDG_CONFIG_HOME: join(home, "usage") };
    assert.equal((await cli(["login", "--api-key", added.stdout.trim()], { env })).code, 0);
    const usage: string[][] = [
      ["bogus"],
      ["--no-such-flag"],
      ["keys", "create"],
      ["keys", "bogus"],
      ["keys", "list", "extra"],
      ["sessions", "show"],
      ["sessions", "bogus"],
      ["policy", "push", "p.toml"],
      ["policy", "show"],
      ["policy", "bogus"],
      ["policy", "test"],
      ["why"],
      ["trace", "x", "--limit", "many"],
      ["preview"],
      ["models", "--provider-key", "nonsense"],
    ];
    for (const args of usage) {
      const r = await cli(args, { env });
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, /usage|unknown|expects/, args.join(" "));
    }
    const operatorUsage: string[][] = [
      [],
      ["frobnicate"],
      ["list", "extra"],
      ["rename", "x"],
      ["budget", "x"],
      ["budget", "x", "--daily", "five"],
    ];
    for (const args of operatorUsage) {
      const r = await operator(args);
      assert.equal(r.code, 2, `admin users ${args.join(" ")}: ${r.stderr}`);
    }
    // Before knowing who is logged in: an unknown command is still bad usage.
    const nobody = await cli(["bogus"], { env: { XDG_CONFIG_HOME: join(home, "nobody") } });
    assert.equal(nobody.code, 2, nobody.stderr);
    assert.match(nobody.stderr, /unknown command "bogus"/);
    // Understood, and refused by the service: 1.
    const failed = await cli(["keys", "revoke", "00000000-0000-7000-8000-000000000000"], { env });
    assert.equal(failed.code, 1, failed.stderr);
    assert.match(failed.stderr, /not_found/);
    const badName = await cli(["keys", "create", "a\u001bb"], { env });
    assert.equal(badName.code, 1, badName.stderr);
    assert.match(
      badName.stderr,
      /error: invalid_request: invalid request body: name: control characters are not allowed \(found U\+001B at character 2\)/,
    );
    const badDate = await cli(["keys", "create", "ci", "--expires", "2027-02-30T00:00:00Z"], {
      env,
    });
    assert.equal(badDate.code, 1, badDate.stderr);
    assert.match(badDate.stderr, /February 2027 has 28 days/);
  });
});

describe("switchyard login on a service with bootstrap off", () => {
  test("says to sign in with an API key from the operator, and how", async () => {
    const closed = await createTestApp({
      configure: (c) => {
        c.auth.operatorToken = OPERATOR;
        c.auth.bootstrapEnabled = false;
      },
    });
    const server = await serveHandler(closed.handler);
    try {
      const env = { SWITCHYARD_URL: server.url, XDG_CONFIG_HOME: join(home, "closed") };
      const plain = await cli(["login"], { env });
      assert.equal(plain.code, 1);
      assert.equal(plain.stdout, "");
      assert.match(
        plain.stderr,
        /does not create users on login \(bootstrap is off\): ask its operator for an API key, then run `switchyard login --api-key KEY` \(or set SWITCHYARD_API_KEY\)/,
      );
      const added = await cli(["admin", "users", "add", "bo"], {
        env: { ...env, SWITCHYARD_OPERATOR_TOKEN: OPERATOR },
      });
      const withKey = await cli(["login", "--api-key", added.stdout.trim()], { env });
      assert.equal(withKey.code, 0, withKey.stderr);
    } finally {
      await server.close();
      await closed.close();
    }
  });
});
