/**
 * RFC 3339 date-times read against the calendar and the clock: a date that
 * does not exist is refused with what is wrong, never shifted to another day
 * as the runtimes' `Date.parse` shifts `2027-02-30` to March 2nd.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { daysInMonth, parseRfc3339 } from "../../src/core/rfc3339.ts";

const instant = (text: string) => {
  const parsed = parseRfc3339(text);
  assert.ok(parsed.ok, `${text}: ${parsed.ok ? "" : parsed.problem}`);
  return parsed.date.toISOString();
};
const problem = (text: string) => {
  const parsed = parseRfc3339(text);
  assert.equal(parsed.ok, false, `${text} was accepted`);
  return parsed.ok ? "" : parsed.problem;
};

describe("parseRfc3339", () => {
  test("real date-times give their instant, offsets and fractions applied", () => {
    const cases: [string, string][] = [
      ["2027-01-01T00:00:00Z", "2027-01-01T00:00:00.000Z"],
      ["2028-02-29T12:00:00+05:30", "2028-02-29T06:30:00.000Z"],
      ["2400-02-29T23:59:59-00:00", "2400-02-29T23:59:59.000Z"],
      ["2027-04-30T23:59:59-01:00", "2027-05-01T00:59:59.000Z"],
      ["2027-12-31t23:59:59.123456789z", "2027-12-31T23:59:59.123Z"],
      ["2027-06-01T00:00:00.5+23:59", "2027-05-31T00:01:00.500Z"],
      ["0050-03-01T00:00:00Z", "0050-03-01T00:00:00.000Z"],
    ];
    for (const [text, iso] of cases) assert.equal(instant(text), iso, text);
  });

  test("impossible calendar dates are refused, saying why", () => {
    const cases: [string, RegExp][] = [
      [
        "2027-02-30T00:00:00Z",
        /2027-02-30 is not a date: February 2027 has 28 days/,
      ],
      [
        "2027-04-31T00:00:00Z",
        /2027-04-31 is not a date: April 2027 has 30 days/,
      ],
      ["2027-02-29T00:00:00Z", /February 2027 has 28 days/],
      ["2100-02-29T00:00:00Z", /February 2100 has 28 days/],
      ["2028-02-30T00:00:00Z", /February 2028 has 29 days/],
      [
        "2027-06-00T00:00:00Z",
        /2027-06-00 is not a date: June 2027 has 30 days/,
      ],
      ["2027-13-01T00:00:00Z", /month 13 does not exist/],
      ["2027-00-10T00:00:00Z", /month 00 does not exist/],
    ];
    for (const [text, message] of cases) {
      assert.match(problem(text), message, text);
    }
  });

  test("impossible times and offsets are refused, never rolled into the next day", () => {
    const cases: [string, RegExp][] = [
      ["2027-06-01T24:00:00Z", /hour 24 does not exist: hours are 00 to 23/],
      ["2027-06-01T23:60:00Z", /minute 60 does not exist/],
      ["2027-06-01T23:59:60Z", /second 60 is not accepted/],
      ["2027-06-01T12:00:00+24:00", /offset \+24:00 does not exist/],
      ["2027-06-01T12:00:00-05:60", /offset -05:60 does not exist/],
    ];
    for (const [text, message] of cases) {
      const said = problem(text);
      assert.match(said, message, text);
      assert.ok(said.endsWith(`(was "${text}")`), said);
    }
  });

  test("other shapes are not RFC 3339: no offset, no seconds, a space, a bare date, a number", () => {
    for (
      const text of [
        "2027-06-01T12:00:00",
        "2027-06-01T12:00Z",
        "2027-06-01 12:00:00Z",
        "2027-06-01",
        "2027-06-01T12:00:00+0500",
        "2027-06-01T12:00:00+05",
        "27-06-01T12:00:00Z",
        "2027-6-1T12:00:00Z",
        "2027-06-01T12:00:00.Z",
        "2027-06-01T12:00:00.1234567890Z",
        " 2027-06-01T12:00:00Z",
        "2027-06-01T12:00:00Z\n",
        "tomorrow",
        "",
      ]
    ) {
      // The text itself is not quoted back: it may hold anything.
      assert.equal(
        problem(text),
        'expected an RFC 3339 date and time with seconds and an offset, e.g. "2026-12-31T23:59:59Z"',
        JSON.stringify(text),
      );
    }
  });

  test("daysInMonth follows the Gregorian leap years", () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((m) => daysInMonth(2027, m)),
      [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31],
    );
    assert.deepEqual(
      [2024, 2000, 1900, 2100, 2400].map((y) => daysInMonth(y, 2)),
      [
        29,
        29,
        28,
        28,
        29,
      ],
    );
  });
});
