/**
 * The sessions list's bytes. The store writes the list as JSON text in SQL
 * (store/sessions.ts: listSessions) and the route sends it as it is, so
 * nothing in JavaScript shapes it any more. Pinned here byte for byte on
 * PGlite and, with DATABASE_URL, on PostgreSQL: the keys and their order,
 * `scope` and `key_id` absent rather than null, a null title, escapes,
 * characters outside ASCII, timestamps at millisecond precision (a stored
 * microsecond truncated, as a Date would), metadata never shown; and the list
 * is exactly `JSON.stringify` of `sessionSummary` over the stored rows, the
 * shape of every other session response.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { type SessionRecord, sessionSummary } from "../../src/core/session_view.ts";
import { uuidv7 } from "../../src/platform/ids.ts";
import { type Account, call, createTestApp, signUp, type TestApp } from "../support/app.ts";
import { storesUnderTest } from "../support/databases.ts";

/** Every character JSON escapes, and some it leaves as they are (DEL, U+2028, `/`). */
const ESCAPES = 'tab\there "quoted" back\\slash\nline\r\u0001\u001f\b\f \u007f\u2028/ end';
const ESCAPES_JSON = String.raw`"tab\there \"quoted\" back\\slash\nline\r\u0001\u001f\b\f ` +
  '\u007f\u2028/ end"';
const UNICODE = "Café — 日本語 🚀 Ωmega";

for (const store of storesUnderTest(process.env)) {
  describe(`the sessions list's bytes on ${store.name}`, () => {
    let opened: Awaited<ReturnType<typeof store.open>>;
    let app: TestApp;
    let alice: Account;
    before(async () => {
      opened = await store.open();
      app = await createTestApp({ db: opened.db });
      alice = await signUp(app);
    });
    after(async () => {
      await app.close();
      await opened.dispose();
    });

    /** The list's body as sent, checked against the OpenAPI document on the way. */
    async function listText(account: Account, query = ""): Promise<string> {
      const path = `/api/v1/sessions${query}`;
      const checked = await call(app, "GET", path, { token: account.token });
      assert.equal(checked.status, 200);
      const response = await app.handler(
        new Request(`http://127.0.0.1${path}`, {
          headers: { authorization: `Bearer ${account.token}` },
        }),
      );
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("content-type"), "application/json");
      return await response.text();
    }

    async function create(body: Record<string, unknown>): Promise<{ id: string }> {
      app.clock.advance(1001);
      const r = await call(app, "POST", "/api/v1/sessions", { token: alice.token, body });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      return r.body.session;
    }

    test("a new user's list is an empty array", async () => {
      assert.equal(await listText(await signUp(app)), '{"sessions":[]}');
    });

    test("every kind of session, byte for byte", async () => {
      const plain = await create({ title: "Plain", scope: "repo:a" });
      const unicode = await create({ title: UNICODE, scope: UNICODE, key_id: "key 1 ✓" });
      const escapes = await create({ title: ESCAPES, scope: ESCAPES, key_id: ESCAPES });
      const archived = await create({ title: "" });
      app.clock.advance(1001);
      const put = await call(app, "PUT", `/api/v1/sessions/${archived.id}`, {
        token: alice.token,
        body: { archived: true },
      });
      assert.equal(put.status, 200);
      // What the API cannot make: no title, metadata, and timestamps to the microsecond.
      const untitled = uuidv7();
      await app.db.query(
        `INSERT INTO sessions (id, user_id, title, metadata, created_at, updated_at)
         VALUES ($1, $2, NULL, '{"surface": "openai", "n": [1, 2]}'::jsonb,
                 '2025-12-31T23:59:59.999999Z', '2026-01-01T00:00:00.0005Z')`,
        [untitled, alice.userId],
      );

      const expected = `{"sessions":[${
        [
          `{"id":"${archived.id}","title":"","encrypted":false,` +
          `"created_at":"2026-01-01T00:00:04.004Z","updated_at":"2026-01-01T00:00:05.005Z",` +
          `"archived":true}`,
          `{"id":"${escapes.id}","title":${ESCAPES_JSON},"scope":${ESCAPES_JSON},` +
          `"encrypted":true,"key_id":${ESCAPES_JSON},` +
          `"created_at":"2026-01-01T00:00:03.003Z","updated_at":"2026-01-01T00:00:03.003Z",` +
          `"archived":false}`,
          `{"id":"${unicode.id}","title":"${UNICODE}","scope":"${UNICODE}",` +
          `"encrypted":true,"key_id":"key 1 ✓",` +
          `"created_at":"2026-01-01T00:00:02.002Z","updated_at":"2026-01-01T00:00:02.002Z",` +
          `"archived":false}`,
          `{"id":"${plain.id}","title":"Plain","scope":"repo:a","encrypted":false,` +
          `"created_at":"2026-01-01T00:00:01.001Z","updated_at":"2026-01-01T00:00:01.001Z",` +
          `"archived":false}`,
          `{"id":"${untitled}","title":null,"encrypted":false,` +
          `"created_at":"2025-12-31T23:59:59.999Z","updated_at":"2026-01-01T00:00:00.000Z",` +
          `"archived":false}`,
        ].join(",")
      }]}`;
      const listed = await listText(alice);
      assert.equal(listed, expected);
      assert.equal(JSON.parse(listed).sessions[1].title, ESCAPES);

      // The same bytes as the summaries the other session responses are made of.
      const rows = await app.db.query<SessionRecord>(
        `SELECT id, title, scope, key_id, archived, metadata, created_at, updated_at
         FROM sessions WHERE user_id = $1 ORDER BY updated_at DESC, id DESC`,
        [alice.userId],
      );
      assert.equal(listed, JSON.stringify({ sessions: rows.map(sessionSummary) }));

      // Filtered lists are the same entries, cut.
      const entries = JSON.parse(listed).sessions as { id: string }[];
      const only = (...ids: string[]) =>
        `{"sessions":[${
          entries.filter((e) => ids.includes(e.id)).map((e) => JSON.stringify(e)).join(",")
        }]}`;
      assert.equal(await listText(alice, "?scope=repo:a"), only(plain.id));
      assert.equal(
        await listText(alice, `?title=${encodeURIComponent("日本語")}`),
        only(unicode.id),
      );
      assert.equal(await listText(alice, "?title=nothing-like-it"), '{"sessions":[]}');
    });
  });
}
