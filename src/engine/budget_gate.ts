/**
 * Budgets before every model call (decisions.md §13): spend never passes a
 * limit. A call reserves the most it can cost: its input (the estimate of
 * everything sent) at the highest of its input and cache prices, plus its
 * output limit priced as output,
 * the output limit being the smallest of the client's, the model's and what
 * each window with a limit (UTC day, UTC month) has left after the input, the
 * spend and the other calls' reservations. Near a limit the call is made with
 * that smaller limit (the trace says so); one that cannot get
 * `OUTPUT_FLOOR_TOKENS` is refused before it is made, 429 `budget_exceeded`.
 * The reservation is made in the database (store/budgets.ts), atomically
 * across instances; when the call ends it becomes its real cost.
 *
 * A user without a budget pays no round trip: the turn's claim reads whether
 * the user has one (`TurnBase.budgeted`), in the statement it makes anyway.
 * Only when the claim could not tell is the first call's admission what finds
 * out, and the answer is kept for the turn's later calls.
 */
import Big from "big.js";
import { replyReserve } from "../core/candidate_walk.ts";
import { formatDecimal, hasPrices, inputCostCeiling, usageCost } from "../core/cost.ts";
import { type Failure, failure } from "../core/errors.ts";
import { estimateTokens } from "../core/tokens.ts";
import type { TurnDecision } from "../core/turn_decision.ts";
import type { TokenUsage } from "../providers/types.ts";
import { type Admission, admitCall, settleCall } from "../store/budgets.ts";
import { decisionScope, traceEvent } from "./trace_records.ts";
import type { TurnContext } from "./turn_context.ts";
import { baseScope } from "./turn_records.ts";

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

/** The fewest output tokens a call is made with: a budget that leaves fewer refuses it. */
export const OUTPUT_FLOOR_TOKENS = 256;

/** A call's reservation, to settle when it ends; null: nothing was reserved. */
export type Reservation = {
  id: string;
  userId: string;
  /** What was reserved: the call's most possible cost. */
  amount: string;
} | null;

type Refused = Extract<Admission, { budget: true }>;

function refusal(
  a: Refused,
  cost: string,
  windows: BudgetWindows,
  now: Date,
): Failure {
  const daily = a.window !== "monthly";
  const limit = (daily ? a.daily : a.monthly) ?? "0";
  const spent = daily ? a.daySpent : a.monthSpent;
  const resets = daily ? windows.day.to : windows.month.to;
  const left = new Big(limit).minus(spent).minus(a.reserved);
  const window = daily ? "daily" : "monthly";
  return {
    ...failure(
      "budget_exceeded",
      `budget exceeded: this call needs at least ${cost} USD (its estimated input and ` +
        `${OUTPUT_FLOOR_TOKENS} output tokens), more than what is left of the ${window} budget ` +
        `of ${limit} USD (${formatDecimal(left.lt(0) ? new Big(0) : left)} USD: ${spent} spent, ` +
        `${a.reserved} reserved by calls in flight); it resets at ${resets.toISOString()}`,
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

/** An admitted call: its reservation, and the output limit the budget set (null: unchanged). */
export interface Admitted {
  ok: true;
  reservation: Reservation;
  /** The output limit to send; null leaves the call's own. */
  outputLimit: number | null;
  /** Why the limit was lowered, for the trace: `output limited to N tokens by the daily budget`. */
  limitNote: string | null;
}

/**
 * Admits the call `d` is about to make, whose client asked for at most
 * `clientMax` output tokens (undefined: none asked): its reservation (null
 * when none was needed) and output limit, or the refusal. Models without
 * prices cost "0" and are never refused.
 */
export async function admitModelCall(
  t: TurnContext,
  d: TurnDecision,
  clientMax?: number,
): Promise<Admitted | { ok: false; failure: Failure }> {
  const unchanged = { ok: true as const, reservation: null, outputLimit: null, limitNote: null };
  if (t.budgeted === false || !hasPrices(d.routing.model)) return unchanged;
  await settleGathered(t);
  const now = t.deps.now();
  const windows = budgetWindows(now);
  const id = t.deps.newId();
  const userId = t.session.user_id;
  const model = d.routing.model;
  const maxOutput = Math.min(clientMax ?? replyReserve(model), replyReserve(model));
  const outputPrice = model.output_cost_per_million_tokens ?? null;
  // Its input at the highest of its prices: a prompt written to the cache costs more than input.
  const inputCost = inputCostCeiling(model, d.context.input_tokens);
  const admission = await admitCall(t.deps.db, {
    id,
    userId,
    amount: inputCost,
    outputPrice,
    maxOutput,
    floor: OUTPUT_FLOOR_TOKENS,
    instance: t.deps.instance,
    runId: t.runId,
    turnId: t.turnId,
    now,
    ...windows,
  });
  if (!admission.budget) {
    t.budgeted = false;
    return unchanged;
  }
  t.budgeted = true;
  if (admission.admitted) {
    const limited = admission.outputTokens < maxOutput;
    const amount = new Big(inputCost).plus(
      new Big(admission.outputTokens).times(outputPrice ?? "0").div(1_000_000),
    );
    return {
      ok: true,
      reservation: { id, userId, amount: formatDecimal(amount) },
      // The limit is sent when the budget lowered it, or the client asked for more than the
      // model gives (the reservation covers what the model gives).
      outputLimit: limited || (clientMax ?? maxOutput) > maxOutput ? admission.outputTokens : null,
      limitNote: limited
        ? `output limited to ${admission.outputTokens} tokens by the ${admission.window} budget`
        : null,
    };
  }
  const least = new Big(inputCost).plus(
    new Big(Math.min(OUTPUT_FLOOR_TOKENS, maxOutput)).times(outputPrice ?? "0").div(1_000_000),
  );
  const refused = refusal(admission, formatDecimal(least), windows, now);
  t.deps.telemetry.budgetRefused(admission.window ?? "daily");
  return { ok: false, failure: refused };
}

/** The trace's record of an output limit the budget set (decisions.md §13). */
export function outputLimitEvent(t: TurnContext, d: TurnDecision, note: string) {
  return traceEvent(decisionScope(baseScope(t), d), "routing_decision", {
    provider: d.routing.model.provider,
    model: d.routing.model.model,
    fallback_used: d.routing.fallback_used,
    override_used: d.routing.override_used,
    reason: note,
  });
}

/** The call ended: its reservation becomes its real cost (`usage`; none when it failed). */
export async function settleModelCall(
  t: TurnContext,
  d: TurnDecision,
  reservation: Reservation,
  usage: TokenUsage | null,
  text = "",
): Promise<void> {
  if (reservation === null) return;
  // A stream cut before the provider reported usage was still billed: its input is the
  // estimate, its output what arrived.
  const cost = usage === null ? "0" : usageCost(
    d.routing.model,
    usage.inputTokens ?? d.context.input_tokens,
    usage.outputTokens ?? estimateTokens(text),
    { read: usage.cachedInputTokens, write: usage.cacheWriteTokens },
  ) ?? "0";
  await settle(t, reservation, cost);
}

/** A call that ended in a way nothing tells the cost of (an internal error): it keeps its reservation. */
export async function settleUnknown(t: TurnContext, reservation: Reservation): Promise<void> {
  if (reservation !== null) await settle(t, reservation, reservation.amount);
}

async function settle(
  t: TurnContext,
  reservation: NonNullable<Reservation>,
  cost: string,
): Promise<void> {
  const settlement = { id: reservation.id, userId: reservation.userId, cost, now: t.deps.now() };
  // A plaintext turn writes it with its records, in the commit that ends or pauses the turn
  // (an error ends it too); else at once.
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
