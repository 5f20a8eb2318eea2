/**
 * Usage across sessions (decisions.md §13): a user's usage events of every
 * session between two UTC dates, inclusive, as the session usage report shapes
 * them (core/usage_report.ts: `total`, `by_model`, `by_task_type`, exact
 * decimals, first-seen order), plus `by_day` (every day of the period, empty
 * days at zero, so a chart needs no filling) and the budget with what is left
 * of it in the current UTC day and month.
 *
 * The period's figures are the sum of the sessions' usage reports, to the last
 * decimal: the same events, the same sums. An event of an encrypted session
 * keeps no figures (decisions.md §8): it counts as a request and adds nothing.
 */
import Big from "big.js";
import { type Failure, failure, type Outcome } from "./errors.ts";
import { formatDecimal } from "./cost.ts";
import { type CostEvent, type UsageReport, usageReport, type UsageTotal } from "./usage_report.ts";
import { CURRENCY } from "./vocabulary.ts";

/** A usage event of some session of the user, with when it was recorded. */
export interface DatedCostEvent extends CostEvent {
  created_at: Date;
}

export interface UsageDay {
  /** `YYYY-MM-DD`, a UTC calendar day. */
  date: string;
  input_tokens: number;
  output_tokens: number;
  /** Shown when non-zero, as in the session report. */
  cache_read_tokens?: number;
  cache_write_tokens?: number;
  total_tokens: number;
  estimated_cost: string;
  currency: string;
  request_count: number;
}

/** One window of a budget: its limit, what it counts, what is left, when it starts again. */
export interface BudgetWindowView {
  limit: string;
  /** The spend the budget counts in the window (every call of the user, whatever the session). */
  spent: string;
  /** The input costs reserved by the user's calls in flight. */
  reserved: string;
  /** limit − spent − reserved, never below "0". */
  left: string;
  resets_at: string;
}

export interface BudgetView {
  daily: BudgetWindowView | null;
  monthly: BudgetWindowView | null;
  currency: string;
}

export interface PeriodUsageReport extends Omit<UsageReport, "total"> {
  /** As a session's report's total, with the number of model calls. */
  total: UsageTotal & { request_count: number };
  from: string;
  to: string;
  by_day: UsageDay[];
  /** Null: the user has no budget. */
  budget: BudgetView | null;
}

/** The longest period one request may ask for, in days. */
export const MAX_PERIOD_DAYS = 366;

const DATE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;
const DAY_MS = 86_400_000;

/** A `YYYY-MM-DD` that names a real calendar day, as its UTC midnight; else null. */
export function parseDay(value: string): Date | null {
  const m = DATE.exec(value);
  if (m === null) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const at = new Date(Date.UTC(y, mo - 1, d));
  if (at.getUTCFullYear() !== y || at.getUTCMonth() !== mo - 1 || at.getUTCDate() !== d) {
    return null;
  }
  return at;
}

export const dayString = (at: Date): string => at.toISOString().slice(0, 10);

export interface Period {
  /** The first day's UTC midnight. */
  from: Date;
  /** The last day's UTC midnight (inclusive). */
  to: Date;
}

function badDate(parameter: string, message: string): Failure {
  return failure("invalid_request", `invalid query parameter "${parameter}": ${message}`, {
    parameter,
  });
}

/**
 * The period of `?from=&to=` (UTC dates, both inclusive). Absent: this UTC
 * month (from its first day to its last). One given alone: `from` runs to the
 * end of its month, `to` starts at the beginning of its month.
 */
export function usagePeriod(
  query: { from: string | null; to: string | null },
  now: Date,
): Outcome<Period> {
  const dateOf = (name: "from" | "to"): Date | null | Failure => {
    const raw = query[name];
    if (raw === null) return null;
    return parseDay(raw) ?? badDate(name, `expected a UTC date YYYY-MM-DD, got "${raw}"`);
  };
  const from = dateOf("from");
  const to = dateOf("to");
  if (from !== null && !(from instanceof Date)) return { ok: false, failure: from };
  if (to !== null && !(to instanceof Date)) return { ok: false, failure: to };
  const anchor = from ?? to ?? now;
  const start = from ??
    new Date(Date.UTC(anchor.getUTCFullYear(), anchor.getUTCMonth(), 1));
  const end = to ??
    new Date(Date.UTC(anchor.getUTCFullYear(), anchor.getUTCMonth() + 1, 0));
  if (end.getTime() < start.getTime()) {
    return {
      ok: false,
      failure: badDate("to", `"${dayString(end)}" is before "from" (${dayString(start)})`),
    };
  }
  const days = (end.getTime() - start.getTime()) / DAY_MS + 1;
  if (days > MAX_PERIOD_DAYS) {
    return {
      ok: false,
      failure: badDate("to", `the period is ${days} days long; at most ${MAX_PERIOD_DAYS} days`),
    };
  }
  return { ok: true, value: { from: start, to: end } };
}

/** The period's events end before this instant: the day after `to`. */
export const periodEnd = (p: Period): Date => new Date(p.to.getTime() + DAY_MS);

function byDay(events: readonly DatedCostEvent[], period: Period): UsageDay[] {
  type Day = {
    input: number;
    output: number;
    read: number;
    write: number;
    cost: Big;
    count: number;
  };
  const days = new Map<string, Day>();
  for (let t = period.from.getTime(); t <= period.to.getTime(); t += DAY_MS) {
    const day = { input: 0, output: 0, read: 0, write: 0, cost: new Big(0), count: 0 };
    days.set(dayString(new Date(t)), day);
  }
  for (const e of events) {
    const day = days.get(dayString(e.created_at));
    if (day === undefined) continue;
    day.input += e.input_tokens ?? 0;
    day.output += e.output_tokens ?? 0;
    day.read += e.cached_tokens ?? 0;
    day.write += e.cache_write_tokens ?? 0;
    if (e.cost !== null) day.cost = day.cost.plus(e.cost);
    day.count += 1;
  }
  return [...days].map(([date, d]) => ({
    date,
    input_tokens: d.input,
    output_tokens: d.output,
    ...(d.read === 0 ? {} : { cache_read_tokens: d.read }),
    ...(d.write === 0 ? {} : { cache_write_tokens: d.write }),
    total_tokens: d.input + d.output,
    estimated_cost: formatDecimal(d.cost),
    currency: CURRENCY,
    request_count: d.count,
  }));
}

/** A budget's state now, from the store: the limits and the ledger's figures. */
export interface BudgetState {
  daily: string | null;
  monthly: string | null;
  daySpent: string;
  monthSpent: string;
  reserved: string;
}

export function budgetView(state: BudgetState | null, now: Date): BudgetView | null {
  if (state === null) return null;
  const [y, m, d] = [now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()];
  const window = (limit: string | null, spent: string, resets: Date): BudgetWindowView | null => {
    if (limit === null) return null;
    const left = new Big(limit).minus(spent).minus(state.reserved);
    return {
      limit,
      spent,
      reserved: state.reserved,
      left: formatDecimal(left.lt(0) ? new Big(0) : left),
      resets_at: resets.toISOString(),
    };
  };
  return {
    daily: window(state.daily, state.daySpent, new Date(Date.UTC(y, m, d + 1))),
    monthly: window(state.monthly, state.monthSpent, new Date(Date.UTC(y, m + 1, 1))),
    currency: CURRENCY,
  };
}

/** The report of a user's events in `period` (oldest first) and budget. */
export function periodUsageReport(
  events: readonly DatedCostEvent[],
  period: Period,
  budget: BudgetView | null,
): PeriodUsageReport {
  const report = usageReport(events, { encrypted: false });
  return {
    from: dayString(period.from),
    to: dayString(period.to),
    total: { ...report.total, request_count: events.length },
    by_day: byDay(events, period),
    by_model: report.by_model,
    by_task_type: report.by_task_type,
    budget,
  };
}
