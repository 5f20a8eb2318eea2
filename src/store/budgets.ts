/**
 * Budgets (decisions.md §13, migration 014): each user's limits in exact
 * decimal USD by UTC day and month. A user without a budget has no row: a
 * budget of two nulls deletes it. Amounts go in and come out as decimal
 * strings in the plain notation of decisions.md §10.
 */
import Big from "big.js";
import { formatDecimal } from "../core/cost.ts";
import type { Queryable } from "./db.ts";

export interface UserBudget {
  daily: string | null;
  monthly: string | null;
}

/** `numeric::text` keeps the scale it was given ("1.50"); the notation of §10 trims it. */
export function plainDecimal(value: string): string {
  return formatDecimal(new Big(value));
}

function plainOrNull(value: string | null): string | null {
  return value === null ? null : plainDecimal(value);
}

/**
 * Sets a user's budget; `{ daily: null, monthly: null }` removes it and
 * records when (migration 020). A budget given to a user without one counts
 * what the windows hold already, in the same statement, from the usage
 * events (one spent row per UTC day): for a budget given again, what was
 * spent since it was removed; for a first budget whose ledger holds nothing of
 * `now`'s UTC month, the month's spend so far. So the windows count the real
 * spend whatever the budget's history.
 */
export async function setUserBudget(
  db: Queryable,
  userId: string,
  budget: UserBudget,
  now: Date,
): Promise<void> {
  if (budget.daily === null && budget.monthly === null) {
    await db.query(
      `WITH gone AS (DELETE FROM user_budgets WHERE user_id = $1 RETURNING user_id)
       INSERT INTO budget_removals (user_id, removed_at) SELECT user_id, $2 FROM gone
       ON CONFLICT (user_id) DO UPDATE SET removed_at = excluded.removed_at`,
      [userId, now],
    );
    return;
  }
  const monthFrom = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const monthTo = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  await db.query(
    `WITH up AS (
       INSERT INTO user_budgets (user_id, daily, monthly, updated_at)
       VALUES ($1, $2::numeric, $3::numeric, $4)
       ON CONFLICT (user_id) DO UPDATE
         SET daily = excluded.daily, monthly = excluded.monthly, updated_at = excluded.updated_at
       RETURNING (xmax = 0) AS created
     ),
     removed AS (
       DELETE FROM budget_removals r USING up
       WHERE up.created AND r.user_id = $1
       RETURNING r.removed_at
     ),
     since AS (
       SELECT CASE
         WHEN EXISTS (SELECT 1 FROM removed) THEN greatest((SELECT removed_at FROM removed), $5)
         WHEN NOT EXISTS (SELECT 1 FROM budget_ledger l
                          WHERE l.user_id = $1 AND l.at >= $5 AND l.at < $6) THEN $5
       END AS at
       FROM up WHERE up.created
     )
     INSERT INTO budget_ledger (id, user_id, spent, amount, at)
     SELECT gen_random_uuid(), $1, true, sum(e.cost), date_trunc('day', e.created_at, 'UTC')
     FROM since, usage_events e JOIN sessions s ON s.id = e.session_id
     WHERE since.at IS NOT NULL AND s.user_id = $1 AND e.cost IS NOT NULL
       AND e.created_at >= since.at AND e.created_at < $6
     GROUP BY date_trunc('day', e.created_at, 'UTC')`,
    [userId, budget.daily, budget.monthly, now, monthFrom, monthTo],
  );
}

/** The budgets of the given users; a user without one is absent from the map. */
export async function findUserBudgets(
  db: Queryable,
  userIds: readonly string[],
): Promise<Map<string, UserBudget>> {
  const budgets = new Map<string, UserBudget>();
  if (userIds.length === 0) return budgets;
  const rows = await db.query<
    { user_id: string; daily: string | null; monthly: string | null }
  >(
    `SELECT user_id, daily::text AS daily, monthly::text AS monthly
     FROM user_budgets WHERE user_id = ANY($1::uuid[])`,
    [userIds],
  );
  for (const row of rows) {
    budgets.set(row.user_id, {
      daily: plainOrNull(row.daily),
      monthly: plainOrNull(row.monthly),
    });
  }
  return budgets;
}

/** What `switchyard_budget_admit` answers (migration 014), its figures in the plain notation. */
export type Admission =
  | { budget: false }
  | {
    budget: true;
    admitted: boolean;
    /**
     * The window with the least left after this call's input (daily on a tie):
     * what refused the call, or limited its output; null without limits.
     */
    window: "daily" | "monthly" | null;
    /** The output limit the call was given (0 when refused). */
    outputTokens: number;
    daily: string | null;
    monthly: string | null;
    daySpent: string;
    monthSpent: string;
    reserved: string;
  };

export interface AdmissionRequest {
  /** The reservation's id: the ledger row that becomes the call's spend. */
  id: string;
  userId: string;
  /** The call's input cost (the decision's `estimate.min`), a decimal string. */
  amount: string;
  /** The model's output price per million tokens; null: none declared. */
  outputPrice: string | null;
  /** The most output tokens the call may be given: the client's and the model's limit. */
  maxOutput: number;
  /** The fewest output tokens worth the call: fewer refuse it. */
  floor: number;
  instance: string;
  /** The run and turn holding the call: the reservation counts while the turn holds its run. */
  runId: string;
  turnId: string;
  now: Date;
  day: { from: Date; to: Date };
  month: { from: Date; to: Date };
}

interface AdmissionRow {
  budget: boolean;
  admitted?: boolean;
  window?: "daily" | "monthly" | null;
  daily?: string | null;
  monthly?: string | null;
  day_spent?: string;
  month_spent?: string;
  reserved?: string;
  output_tokens?: number;
}

/**
 * Admits a model call against its user's budget in one statement, atomic
 * across instances: the user's budget row is locked, the windows' spend and
 * the live reservations summed, the call given the most output tokens what is
 * left pays for, and its reservation (input cost plus that output priced as
 * output) inserted when that is at least `floor`. A user without a budget
 * writes nothing.
 */
export async function admitCall(
  db: Queryable,
  a: AdmissionRequest,
): Promise<Admission> {
  const rows = await db.query<{ a: AdmissionRow }>(
    "SELECT switchyard_budget_admit($1::jsonb) AS a",
    [JSON.stringify({
      id: a.id,
      user_id: a.userId,
      amount: a.amount,
      output_price: a.outputPrice,
      max_output: a.maxOutput,
      floor: a.floor,
      instance: a.instance,
      run_id: a.runId,
      turn_id: a.turnId,
      now: a.now.toISOString(),
      day_from: a.day.from.toISOString(),
      day_to: a.day.to.toISOString(),
      month_from: a.month.from.toISOString(),
      month_to: a.month.to.toISOString(),
    })],
  );
  const row = rows[0].a;
  if (!row.budget) return { budget: false };
  return {
    budget: true,
    admitted: row.admitted === true,
    window: row.window ?? null,
    outputTokens: row.output_tokens ?? 0,
    daily: plainOrNull(row.daily ?? null),
    monthly: plainOrNull(row.monthly ?? null),
    daySpent: plainDecimal(row.day_spent ?? "0"),
    monthSpent: plainDecimal(row.month_spent ?? "0"),
    reserved: plainDecimal(row.reserved ?? "0"),
  };
}

/**
 * The call ended: its reservation becomes its real cost, in one statement (the
 * row turns from reserved to spent, so the call never counts twice nor not at
 * all). A reservation already reaped is written anew as spent.
 */
export async function settleCall(
  db: Queryable,
  s: { id: string; userId: string; cost: string; now: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO budget_ledger (id, user_id, spent, amount, at)
     VALUES ($1, $2, true, $3::numeric, $4)
     ON CONFLICT (id) DO UPDATE SET spent = true, amount = excluded.amount, at = excluded.at`,
    [s.id, s.userId, s.cost, s.now],
  );
}

/** Settles calls one by one (usually one): those of a turn whose own write could not take them. */
export async function settleCalls(
  db: Queryable,
  calls: readonly { id: string; userId: string; cost: string; now: Date }[],
): Promise<void> {
  for (const c of calls) await settleCall(db, c);
}

/** A budget and the ledger's figures for it now: what `switchyard_budget_admit` would count. */
export interface BudgetState extends UserBudget {
  daySpent: string;
  monthSpent: string;
  reserved: string;
}

/**
 * The budgets of the given users (absent: no budget) with the day's and
 * month's spend and the live reservations at `now`, in one statement.
 */
export async function budgetStates(
  db: Queryable,
  userIds: readonly string[],
  c: { now: Date; day: { from: Date; to: Date }; month: { from: Date; to: Date } },
): Promise<Map<string, BudgetState>> {
  const states = new Map<string, BudgetState>();
  if (userIds.length === 0) return states;
  const rows = await db.query<
    {
      user_id: string;
      daily: string | null;
      monthly: string | null;
      day_spent: string;
      month_spent: string;
      reserved: string;
    }
  >(
    // As the admission counts them (functions/budgets.sql): the windows' spend from the days
    // (migration 022; the windows are whole UTC days), the live reservations from the ledger.
    `SELECT b.user_id, b.daily::text AS daily, b.monthly::text AS monthly,
            coalesce(spend.day_spent, 0)::text AS day_spent,
            coalesce(spend.month_spent, 0)::text AS month_spent,
            coalesce(reserved.held, 0)::text AS reserved
     FROM user_budgets b
     CROSS JOIN LATERAL (
       SELECT sum(d.spent) FILTER (WHERE d.day >= ($3::timestamptz AT TIME ZONE 'UTC')::date
                                     AND d.day < ($4::timestamptz AT TIME ZONE 'UTC')::date)
                AS day_spent,
              sum(d.spent) AS month_spent
       FROM budget_days d
       WHERE d.user_id = b.user_id AND d.day >= ($5::timestamptz AT TIME ZONE 'UTC')::date
         AND d.day < ($6::timestamptz AT TIME ZONE 'UTC')::date
     ) AS spend
     CROSS JOIN LATERAL (
       SELECT sum(l.amount) FILTER (WHERE switchyard_reservation_live(l, $2::timestamptz)) AS held
       FROM budget_ledger l
       WHERE l.user_id = b.user_id AND NOT l.spent
     ) AS reserved
     WHERE b.user_id = ANY($1::uuid[])`,
    [userIds, c.now, c.day.from, c.day.to, c.month.from, c.month.to],
  );
  for (const row of rows) {
    states.set(row.user_id, {
      daily: plainOrNull(row.daily),
      monthly: plainOrNull(row.monthly),
      daySpent: plainDecimal(row.day_spent),
      monthSpent: plainDecimal(row.month_spent),
      reserved: plainDecimal(row.reserved),
    });
  }
  return states;
}
