/**
 * What a failed command prints, from errors as the client makes them: the details the CLI knows
 * are laid out for a person, any other detail still shows, and `Retry-After` is read in both of
 * its forms.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { errorJson, errorReport } from "../../clients/typescript/src/cli/error_report.ts";
import { errorFromResponse, retryAfterSeconds } from "../../clients/typescript/src/errors.ts";

const envelope = (status: number, error: unknown, headers: Record<string, string> = {}) =>
  errorFromResponse(new Response(JSON.stringify({ error }), { status, headers }));

describe("error report", () => {
  test("Retry-After is read as seconds or as an HTTP date", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    const cases: [string | null, number | undefined][] = [
      ["12", 12],
      [" 0 ", 0],
      ["Thu, 01 Jan 2026 00:00:30 GMT", 30],
      ["Wed, 31 Dec 2025 23:59:00 GMT", 0],
      ["soon", undefined],
      [null, undefined],
    ];
    for (const [header, expected] of cases) {
      assert.equal(retryAfterSeconds(header, now), expected, String(header));
    }
  });

  test("a detail the CLI does not know is shown as it came, after the known ones", async () => {
    const error = await envelope(422, {
      code: "invalid_request",
      message: "invalid tool results: missing call_id 'a'",
      details: { path: "data.results", missing: ["a"], extra: [], limit: 3, note: { x: 1 } },
    });
    assert.equal(
      errorReport(error),
      "error: invalid_request: invalid tool results: missing call_id 'a'\n" +
        "  at:          data.results\n" +
        "  missing:     a\n" +
        "  limit:       3\n" +
        '  note:        {"x":1}\n',
    );
  });

  test("--json gives the envelope with the status and the Retry-After header", async () => {
    const error = await envelope(429, {
      code: "rate_limited",
      message: "rate limit exceeded",
    }, { "retry-after": "7" });
    assert.equal(
      errorReport(error),
      "error: rate_limited: rate limit exceeded\n  retry after: 7 s\n",
    );
    assert.deepEqual(JSON.parse(errorJson(error)), {
      error: {
        code: "rate_limited",
        message: "rate limit exceeded",
        status: 429,
        retry_after_seconds: 7,
      },
    });
    assert.deepEqual(JSON.parse(errorJson(new Error("not logged in"))), {
      error: { message: "not logged in" },
    });
  });
});
