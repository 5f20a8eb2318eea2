/**
 * Budgets before every model call (decisions.md §13): a call is admitted
 * while, for each window with a limit (UTC day, UTC month), the window's spend
 * plus the reservations of the user's calls in flight plus this call's input
 * cost (the decision's `estimate.min`) stay within it; else it is refused
 * before it is made, 429 `budget_exceeded`. An admitted call reserves its input
 * cost in the database (store/budgets.ts, migration 014), atomically across
 * instances; when it ends the reservation becomes its real cost.
 *
 * A user without a budget pays no round trip: the turn's claim reads whether
 * the user has one (`TurnBase.budgeted`), in the statement it makes anyway.
 * Only when the claim could not tell is the first call's admission what finds
 * out, and the answer is kept for the turn's later calls.
 */
import Big from "big.js";
import { formatDecimal, hasPrices, usageCost } from "../core/cost.ts";
import { type Failure, failure } from "../core/errors.ts";
import type { TurnDecision } from "../core/turn_decision.ts";
import type { TokenUsage } from "../providers/types.ts";
import { type Admission, admitCall, settleCall } from "../store/budgets.ts";
import type { TurnContext } from "./turn_context.ts";

export interface BudgetWindows {
  day: { from: Date; to: Date };
  month: { from: Date; to: Date };
}

/** The UTC calendar day and month holding `now`, each as `[from, to)`. */
export function budgetWindows(now: Date): BudgetWindows {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const d = now.getUTCDate();
  return {
    day: {
      from: new Date(Date.UTC(y, m, d)),
      to: new Date(Date.UTC(y, m, d + 1)),
    },
    month: {
      from: new Date(Date.UTC(y, m, 1)),
      to: new Date(Date.UTC(y, m + 1, 1)),
    },
  };
}

/** A call's reservation, to settle when it ends; null: nothing was reserved. */
export type Reservation = { id: string; userId: string } | null;

type Refused = Extract<Admission, { budget: true }>;

function refusal(
  a: Refused,
  cost: string,
  windows: BudgetWindows,
  now: Date,
): Failure {
  const daily = a.window === "daily";
  const limit = (daily ? a.daily : a.monthly) ?? "0";
  const spent = daily ? a.daySpent : a.monthSpent;
  const resets = daily ? windows.day.to : windows.month.to;
  const left = new Big(limit).minus(spent).minus(a.reserved);
  const window = daily ? "daily" : "monthly";
  return {
    ...failure(
      "budget_exceeded",
      `budget exceeded: this call's estimated input cost of ${cost} USD is more than what is left ` +
        `of the ${window} budget of ${limit} USD (${
          formatDecimal(left.lt(0) ? new Big(0) : left)
        } ` +
        `USD: ${spent} spent, ${a.reserved} reserved by calls in flight); it resets at ` +
        resets.toISOString(),
      {
        window,
        limit,
        spent,
        reserved: a.reserved,
        estimated_cost: cost,
        resets_at: resets.toISOString(),
      },
    ),
    retryAfterSeconds: Math.max(
      1,
      Math.ceil((resets.getTime() - now.getTime()) / 1000),
    ),
  };
}

/**
 * Admits the call `d` is about to make: its reservation (null when none was
 * needed) or the refusal. Models without prices cost "0" and are never refused.
 */
export async function admitModelCall(
  t: TurnContext,
  d: TurnDecision,
): Promise<
  { ok: true; reservation: Reservation } | { ok: false; failure: Failure }
> {
  if (t.budgeted === false || !hasPrices(d.routing.model)) {
    return { ok: true, reservation: null };
  }
  await settleGathered(t);
  const now = t.deps.now();
  const windows = budgetWindows(now);
  const id = t.deps.newId();
  const userId = t.session.user_id;
  const cost = d.estimate.min;
  const admission = await admitCall(t.deps.db, {
    id,
    userId,
    amount: cost,
    instance: t.deps.instance,
    runId: t.runId,
    turnId: t.turnId,
    now,
    ...windows,
  });
  if (!admission.budget) {
    t.budgeted = false;
    return { ok: true, reservation: null };
  }
  t.budgeted = true;
  if (admission.admitted) return { ok: true, reservation: { id, userId } };
  const refused = refusal(admission, cost, windows, now);
  t.deps.telemetry.budgetRefused(admission.window ?? "daily");
  return { ok: false, failure: refused };
}

/** The call ended: its reservation becomes its real cost (`usage`; none when it failed). */
export async function settleModelCall(
  t: TurnContext,
  d: TurnDecision,
  reservation: Reservation,
  usage: TokenUsage | null,
): Promise<void> {
  if (reservation === null) return;
  const cost = usage === null ? "0" : usageCost(
    d.routing.model,
    usage.inputTokens ?? 0,
    usage.outputTokens ?? 0,
    { read: usage.cachedInputTokens, write: usage.cacheWriteTokens },
  ) ?? "0";
  const settlement = { ...reservation, cost, now: t.deps.now() };
  // A plaintext turn writes it with its records, in the commit that ends or pauses the turn
  // (until then its turn holds the run, so the reservation still counts); else at once.
  if (t.seal === null) (t.records.settlements ??= []).push(settlement);
  else await settleCall(t.deps.db, settlement);
}

/**
 * Settles now what the turn gathered so far: a later call of the same turn is
 * admitted against the real cost of the earlier ones, not their reservations.
 */
async function settleGathered(t: TurnContext): Promise<void> {
  const pending = t.records.settlements ?? [];
  if (pending.length === 0) return;
  t.records.settlements = [];
  for (const s of pending) await settleCall(t.deps.db, s);
}
