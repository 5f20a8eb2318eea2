/**
 * RFC 3339 date-times as operators write them (`expires_at`, decisions.md
 * §13): `2027-02-28T23:59:59Z`, `2027-02-28t23:59:59.5+01:00`. Every field is
 * checked against the calendar and the clock, so `2027-02-30` or hour 24 is
 * refused with what is wrong rather than shifted into March or the next day,
 * as the runtimes' `Date.parse` does. Seconds are required (RFC 3339's
 * `partial-time`); a leap second (`:60`) is refused, since no stored time
 * holds one. Pure: no I/O.
 */

const SHAPE =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

const leap = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);

/** The days of a month (1–12) of a year, by the proleptic Gregorian calendar. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return leap(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

export type Rfc3339 = { ok: true; date: Date } | { ok: false; problem: string };

/** The instant `text` names, or what keeps it from being a real RFC 3339 date-time. */
export function parseRfc3339(text: string): Rfc3339 {
  const m = SHAPE.exec(text);
  if (m === null) {
    return {
      ok: false,
      problem:
        'expected an RFC 3339 date and time with seconds and an offset, e.g. "2026-12-31T23:59:59Z"',
    };
  }
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  const fail = (problem: string): Rfc3339 => ({ ok: false, problem: `${problem} (was "${text}")` });
  if (month < 1 || month > 12) return fail(`month ${m[2]} does not exist: months are 01 to 12`);
  const days = daysInMonth(year, month);
  if (day < 1 || day > days) {
    return fail(
      `${m[1]}-${m[2]}-${m[3]} is not a date: ${MONTHS[month - 1]} ${year} has ${days} days`,
    );
  }
  if (hour > 23) return fail(`hour ${m[4]} does not exist: hours are 00 to 23`);
  if (minute > 59) return fail(`minute ${m[5]} does not exist: minutes are 00 to 59`);
  if (second > 59) return fail(`second ${m[6]} is not accepted: seconds are 00 to 59`);
  let offsetMinutes = 0;
  if (m[8] === undefined) {
    const [offsetHour, offsetMinute] = [Number(m[10]), Number(m[11])];
    if (offsetHour > 23 || offsetMinute > 59) {
      return fail(`offset ${m[9]}${m[10]}:${m[11]} does not exist: offsets are -23:59 to +23:59`);
    }
    offsetMinutes = (m[9] === "-" ? -1 : 1) * (offsetHour * 60 + offsetMinute);
  }
  const millis = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, "0"));
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0–99 as 1900–1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  return { ok: true, date: new Date(date.getTime() - offsetMinutes * 60_000) };
}
