import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  formatApiKey,
  formatToken,
  isUuid,
  parseApiKey,
  parseBearer,
  parseToken,
} from "../../src/core/credential_format.ts";
import { uuidv7 } from "../../src/platform/ids.ts";
import {
  digestsEqual,
  LOWER_ALPHANUMERIC,
  randomString,
  sha256Hex,
} from "../../src/platform/secrets.ts";

const USER = "0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee";

describe("credential formats", () => {
  test("an API key round-trips and rejects malformed shapes", () => {
    const key = formatApiKey(USER, "Secret123");
    assert.equal(key, "sk-router-api01-0190aaaabbbb7ccc8dddeeeeeeeeeeee-Secret123");
    assert.deepEqual(parseApiKey(key), { userId: USER, secret: "Secret123" });
    // the secret is everything after the first hyphen
    assert.deepEqual(parseApiKey(`${key}-more`), { userId: USER, secret: "Secret123-more" });
    for (
      const bad of [
        "",
        "sk-router-api01-",
        "sk-router-api01-abc-def",
        `sk-router-api01-${"G".repeat(32)}-x`,
        key.replace("-Secret123", "-"),
        key.toUpperCase(),
      ]
    ) {
      assert.equal(parseApiKey(bad), null, bad);
    }
  });

  test("a token round-trips; only 32 hex, a hyphen and 64 lower-case alphanumerics parse", () => {
    const secret = randomString(64, LOWER_ALPHANUMERIC);
    const token = formatToken(USER, secret);
    assert.deepEqual(parseToken(token), { tokenId: USER, secret });
    assert.equal(parseToken(token.toUpperCase()), null);
    assert.equal(parseToken(`${token}a`), null);
    assert.equal(parseToken(token.slice(1)), null);
  });

  test("bearer scheme parsing", () => {
    assert.equal(parseBearer("Bearer abc"), "abc");
    assert.equal(parseBearer("BEARER abc"), "abc");
    assert.equal(parseBearer("Bearer  abc"), null);
    assert.equal(parseBearer("Bearer"), null);
    assert.equal(parseBearer("Token abc"), null);
    assert.equal(parseBearer("Bearer a b"), null);
  });

  test("uuidv7 ids are version 7, sortable by time and unique", () => {
    const a = uuidv7(1_700_000_000_000);
    const b = uuidv7(1_700_000_000_001);
    assert.ok(isUuid(a));
    assert.equal(a[14], "7");
    assert.ok("89ab".includes(a[19]));
    assert.ok(a < b);
    assert.equal(a.slice(0, 13), "018bcfe5-6800");
    assert.equal(new Set(Array.from({ length: 1000 }, () => uuidv7())).size, 1000);
  });

  test("random strings use only the alphabet and have the length asked", () => {
    const s = randomString(500, "ab");
    assert.equal(s.length, 500);
    assert.match(s, /^[ab]+$/);
    assert.ok(s.includes("a") && s.includes("b"));
  });

  test("digests are SHA-256 hex and compare in constant time", async () => {
    assert.equal(
      await sha256Hex("abc"),
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
    assert.equal(digestsEqual("ab", "ab"), true);
    assert.equal(digestsEqual("ab", "ac"), false);
    assert.equal(digestsEqual("ab", "abc"), false);
  });
});
