/**
 * Operator input is strict (decisions.md §13): the admin bodies and the key
 * body refuse fields they do not declare, at every level, and every field's
 * bad values, each with 422 `invalid_request` naming the field; names are 1
 * to 100 printable code points, not blank; `expires_at` is a real RFC 3339
 * date-time. Nothing a refused request carried is stored.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, test } from "node:test";
import {
  type Account,
  call,
  type CallResult,
  createTestApp,
  signUp,
  type TestApp,
} from "../support/app.ts";

const OPERATOR = "operator-token-0123456789";
const USERS = "/api/v1/admin/users";
const KEYS = "/api/v1/auth/keys";

let app: TestApp;
before(async () => {
  app = await createTestApp({
    configure: (c) => void (c.auth.operatorToken = OPERATOR),
  });
});
after(() => app.close());

const admin = (method: string, path: string, body: unknown) =>
  call(app, method, path, { token: OPERATOR, body });

/** What a name may not hold: controls, line and paragraph separators, bidi formatting. */
const UNPRINTABLE = /[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/u;

/** A refusal: 422 invalid_request at `path`, its message matching `message` and echoing no control. */
function assertRefused(
  r: CallResult,
  path: string,
  message: RegExp,
  what: string,
) {
  assert.equal(r.status, 422, `${what}: ${JSON.stringify(r.body)}`);
  assert.equal(r.body.error.code, "invalid_request", what);
  assert.equal(
    r.body.error.details.path,
    path,
    `${what}: ${r.body.error.message}`,
  );
  assert.match(r.body.error.message, message, what);
  assert.doesNotMatch(
    r.body.error.message,
    UNPRINTABLE,
    `${what}: the message echoes no control`,
  );
}

/** Hostile or malformed names, each with what the message says. */
const BAD_NAMES: [unknown, RegExp][] = [
  [5, /name must be a string (or null )?\(was (a )?number\)/],
  [true, /name must be a string/],
  [["ada"], /name must be a string/],
  [{ first: "ada" }, /name must be a string/],
  ["", /^invalid request body: name: must not be blank$/],
  ["   ", /must not be blank/],
  ["\t", /control characters are not allowed \(found U\+0009 at character 1\)/],
  ["\u200b\u3000", /must not be blank/],
  ["x".repeat(101), /name must be at most 100 characters \(was 101\)/],
  ["😀".repeat(101), /at most 100 characters \(was 101\)/],
  [
    "\u001b[31mroot\u001b[0m",
    /^invalid request body: name: control characters are not allowed \(found U\+001B at character 1\)$/,
  ],
  [
    "ada\nb0b  enabled",
    /control characters are not allowed \(found U\+000A at character 4\)/,
  ],
  ["ada\r", /found U\+000D at character 4/],
  ["a\u0000", /contains a NUL character \(U\+0000\)/],
  ["del\u007f", /found U\+007F/],
  ["c1\u0085", /found U\+0085/],
  ["csi\u009b31m", /found U\+009B/],
  [
    "ada\u2028bob",
    /line and paragraph separators are not allowed \(found U\+2028/,
  ],
  [
    "ada\u202egpj.exe",
    /bidirectional formatting characters are not allowed \(found U\+202E at character 4\)/,
  ],
  ["\u202aada", /found U\+202A/],
  ["\u202dada", /found U\+202D/],
  ["ada\u2066x\u2069", /found U\+2066/],
  ["ada\u2069", /found U\+2069/],
  ["ada\u200e", /found U\+200E/],
  ["ada\u200f", /found U\+200F/],
  ["ada\u061c", /found U\+061C/],
];

describe("POST /api/v1/admin/users", () => {
  test("bad names and unknown fields are 422 naming the field; no user is added", async () => {
    const before = (await admin("GET", USERS, undefined)).body.users.length;
    for (const [name, message] of BAD_NAMES) {
      assertRefused(
        await admin("POST", USERS, { name }),
        "name",
        message,
        JSON.stringify(name),
      );
    }
    assertRefused(
      await admin("POST", USERS, {}),
      "name",
      /name must be a string \(was missing\)/,
      "{}",
    );
    assertRefused(
      await admin("POST", USERS, { name: null }),
      "name",
      /must be a string/,
      "null",
    );
    // A misspelt required field is named as the misspelling, before the missing field.
    assertRefused(
      await admin("POST", USERS, { nmae: "ada" }),
      "nmae",
      /^invalid request body: nmae: unknown field \(the body takes name\)$/,
      "nmae",
    );
    const extra = await admin("POST", USERS, {
      name: "ada",
      admin: true,
      budget: { daily: "1" },
    });
    assertRefused(extra, "admin", /unknown field/, "admin");
    assert.deepEqual(
      extra.body.error.details.issues.map((i: { path: string }) => i.path),
      ["admin", "budget"],
      "every unknown field is an issue",
    );
    assert.equal(
      (await admin("GET", USERS, undefined)).body.users.length,
      before,
    );
  });

  test("printable names of any script, up to 100 code points, are taken as given", async () => {
    for (
      const name of [
        "Zoë Ångström",
        "李小龙",
        "محمد",
        "👨‍👩‍👧",
        "😀".repeat(100),
        " ada ",
      ]
    ) {
      const r = await admin("POST", USERS, { name });
      assert.equal(r.status, 201, `${name}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.name, name);
    }
  });
});

describe("PUT /api/v1/admin/users/{id}", () => {
  let userId: string;
  before(async () => {
    userId = (await admin("POST", USERS, { name: "carol" })).body.user_id;
  });
  const put = (body: unknown) => admin("PUT", `${USERS}/${userId}`, body);
  const view = async () =>
    (await admin("GET", USERS, undefined)).body.users.find((
      u: { user_id: string },
    ) => u.user_id === userId);

  test("unknown fields at the top and in budget are refused and change nothing", async () => {
    const unchanged = await view();
    const cases: [unknown, string, RegExp][] = [
      [
        { disable: true },
        "disable",
        /^invalid request body: disable: unknown field \(the body takes name, disabled and budget\)$/,
      ],
      [{ enabled: false }, "enabled", /unknown field/],
      [{ name: "x", Name: "y" }, "Name", /unknown field/],
      [
        { budget: { dialy: "5" } },
        "budget.dialy",
        /^invalid request body: budget\.dialy: unknown field \(budget takes daily and monthly\)$/,
      ],
      [
        { budget: { daily: "5", weekly: "20" } },
        "budget.weekly",
        /unknown field \(budget takes daily and monthly\)/,
      ],
      [{ budget: { Daily: "5" } }, "budget.Daily", /unknown field/],
      [
        { disabled: true, budget: { daily: "1", currency: "EUR" } },
        "budget.currency",
        /unknown field/,
      ],
    ];
    for (const [body, path, message] of cases) {
      assertRefused(await put(body), path, message, JSON.stringify(body));
    }
    assert.deepEqual(
      await view(),
      unchanged,
      "the refused bodies changed nothing",
    );
    assert.equal(unchanged.disabled, false);
  });

  test("every field's bad values are 422 naming it", async () => {
    const unchanged = await view();
    for (const [name, message] of BAD_NAMES) {
      assertRefused(await put({ name }), "name", message, JSON.stringify(name));
    }
    for (const disabled of ["yes", "true", 1, 0, null, [], {}]) {
      assertRefused(
        await put({ disabled }),
        "disabled",
        /disabled must be boolean/,
        JSON.stringify(disabled),
      );
    }
    const amounts: unknown[] = [
      5,
      0,
      true,
      [],
      {},
      "",
      "-1",
      "+5",
      " 5",
      "5 ",
      "5.",
      ".5",
      "1e3",
      "0x10",
      "NaN",
      "Infinity",
      "1,5",
      "1_000",
      "٥",
      "５",
      "1234567890123",
      "1.12345678901",
      "5\u001b[2J",
    ];
    for (const window of ["daily", "monthly"]) {
      for (const amount of amounts) {
        assertRefused(
          await put({ budget: { [window]: amount } }),
          `budget.${window}`,
          new RegExp(
            `budget\\.${window} must be a decimal string of US dollars`,
          ),
          `${window} ${JSON.stringify(amount)}`,
        );
      }
    }
    for (const budget of ["5", 5, true, []]) {
      assertRefused(
        await put({ budget }),
        "budget",
        /budget must be/,
        JSON.stringify(budget),
      );
    }
    assert.deepEqual(
      await view(),
      unchanged,
      "the refused bodies changed nothing",
    );
  });

  test("the valid fields still apply, and name null clears the name", async () => {
    const r = await put({
      name: "Carol",
      disabled: true,
      budget: { daily: "0.5", monthly: null },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.user.name, "Carol");
    assert.equal(r.body.user.disabled, true);
    assert.deepEqual(r.body.user.budget, { daily: "0.5", monthly: null });
    const cleared = await put({ name: null, disabled: false, budget: null });
    assert.equal(cleared.status, 200);
    assert.equal(cleared.body.user.name, null);
    assert.equal(cleared.body.user.budget, null);
  });
});

describe("POST /api/v1/auth/keys", () => {
  let alice: Account;
  before(async () => {
    alice = await signUp(app);
  });
  const create = (body: unknown) => call(app, "POST", KEYS, { token: alice.token, body });
  const keyCount = async () =>
    (await call(app, "GET", KEYS, { token: alice.token })).body.keys.length;

  test("bad names, bad dates and unknown fields are 422 naming the field; no key is made", async () => {
    const before = await keyCount();
    for (const [name, message] of BAD_NAMES) {
      assertRefused(
        await create({ name }),
        "name",
        message,
        JSON.stringify(name),
      );
    }
    const unknown: [unknown, string][] = [
      [{ name: "k", expires: "2027-01-01T00:00:00Z" }, "expires"],
      [{ name: "k", expiresAt: "2027-01-01T00:00:00Z" }, "expiresAt"],
      [{ name: "k", scopes: ["admin"] }, "scopes"],
      [{ nmae: "k" }, "nmae"],
    ];
    for (const [body, path] of unknown) {
      assertRefused(
        await create(body),
        path,
        /unknown field \(the body takes name and expires_at\)/,
        JSON.stringify(body),
      );
    }
    const dates: [unknown, RegExp][] = [
      [
        "2027-02-30T00:00:00Z",
        /^invalid request body: expires_at: 2027-02-30 is not a date: February 2027 has 28 days \(was "2027-02-30T00:00:00Z"\)$/,
      ],
      ["2027-04-31T12:00:00Z", /April 2027 has 30 days/],
      ["2027-02-29T12:00:00Z", /February 2027 has 28 days/],
      ["2100-02-29T00:00:00Z", /February 2100 has 28 days/],
      ["2027-06-31T00:00:00+02:00", /June 2027 has 30 days/],
      ["2027-13-01T00:00:00Z", /month 13 does not exist/],
      ["2027-06-01T24:00:00Z", /hour 24 does not exist/],
      ["2027-06-01T23:60:00Z", /minute 60 does not exist/],
      ["2027-06-30T23:59:60Z", /second 60 is not accepted/],
      ["2027-06-01T12:00:00+24:00", /offset \+24:00 does not exist/],
      ["2027-06-01T12:00:00+01:60", /offset \+01:60 does not exist/],
      [
        "2027-06-01T12:00:00+0100",
        /expected an RFC 3339 date and time with seconds and an offset/,
      ],
      ["2027-06-01T12:00:00", /with seconds and an offset/],
      ["2027-06-01T12:00Z", /with seconds and an offset/],
      ["2027-06-01", /with seconds and an offset/],
      ["2027-06-01 12:00:00Z", /with seconds and an offset/],
      ["tomorrow", /with seconds and an offset/],
      ["2027-06-01T12:00:00Z\u001b[2J", /with seconds and an offset/],
      [
        1798761600,
        /expires_at must be a string or null \(was a number\)|expires_at must be/,
      ],
      [true, /expires_at must be/],
      ["2025-12-31T23:59:59Z", /expires_at: must be in the future/],
    ];
    for (const [expires_at, message] of dates) {
      assertRefused(
        await create({ name: "k", expires_at }),
        "expires_at",
        message,
        JSON.stringify(expires_at),
      );
    }
    assert.equal(await keyCount(), before, "no key was made");
  });

  test("real dates are taken at their instant, offsets and lower-case letters included", async () => {
    const cases: [string, string][] = [
      ["2028-02-29T12:00:00+05:30", "2028-02-29T06:30:00.000Z"],
      ["2027-04-30t23:59:59.123456z", "2027-04-30T23:59:59.123Z"],
      ["2027-12-31T23:59:59-01:00", "2028-01-01T00:59:59.000Z"],
    ];
    for (const [expires_at, iso] of cases) {
      const r = await create({ name: "dated", expires_at });
      assert.equal(r.status, 201, `${expires_at}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.expires_at, iso);
    }
  });
});

describe("the OpenAPI document", () => {
  test("the request schemas are closed and the name pattern refuses what the service refuses", async () => {
    const doc = JSON.parse(
      await readFile(
        new URL("../../src/http/openapi.json", import.meta.url),
        "utf8",
      ),
    );
    const schemas = doc.components.schemas;
    const update = schemas.AdminUpdateUserRequest;
    for (
      const closed of [
        schemas.CreateApiKeyRequest,
        schemas.AdminAddUserRequest,
        update,
        update.properties.budget.oneOf[0],
      ]
    ) {
      assert.equal(closed.additionalProperties, false);
    }
    const names = [
      schemas.CreateApiKeyRequest.properties.name,
      schemas.AdminAddUserRequest.properties.name,
      update.properties.name.oneOf[0],
    ];
    for (const name of names) {
      assert.equal(name.maxLength, 100);
      const pattern = new RegExp(name.pattern, "u");
      let hostile = 0;
      for (const [bad] of BAD_NAMES) {
        if (typeof bad === "string" && UNPRINTABLE.test(bad)) {
          assert.equal(pattern.test(bad), false, JSON.stringify(bad));
          hostile++;
        }
      }
      assert.equal(hostile, 17, "every hostile name was tried");
      for (const good of ["ada", "Zoë", "👨‍👩‍👧", "李小龙"]) {
        assert.ok(pattern.test(good), good);
      }
    }
  });
});
