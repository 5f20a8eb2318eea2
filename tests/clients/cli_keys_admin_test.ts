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
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /--daily expects US dollars/);
  });
});
