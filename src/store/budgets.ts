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

/** Sets a user's budget; `{ daily: null, monthly: null }` removes it. */
export async function setUserBudget(
  db: Queryable,
  userId: string,
  budget: UserBudget,
  now: Date,
): Promise<void> {
  if (budget.daily === null && budget.monthly === null) {
    await db.query("DELETE FROM user_budgets WHERE user_id = $1", [userId]);
    return;
  }
  await db.query(
    `INSERT INTO user_budgets (user_id, daily, monthly, updated_at)
     VALUES ($1, $2::numeric, $3::numeric, $4)
     ON CONFLICT (user_id) DO UPDATE
       SET daily = excluded.daily, monthly = excluded.monthly, updated_at = excluded.updated_at`,
    [userId, budget.daily, budget.monthly, now],
  );
}

/** The budgets of the given users; a user without one is absent from the map. */
export async function findUserBudgets(
  db: Queryable,
  userIds: readonly string[],
): Promise<Map<string, UserBudget>> {
  const budgets = new Map<string, UserBudget>();
  if (userIds.length === 0) return budgets;
  const rows = await db.query<{ user_id: string; daily: string | null; monthly: string | null }>(
    `SELECT user_id, daily::text AS daily, monthly::text AS monthly
     FROM user_budgets WHERE user_id = ANY($1::uuid[])`,
    [userIds],
  );
  for (const row of rows) {
    budgets.set(row.user_id, { daily: plainOrNull(row.daily), monthly: plainOrNull(row.monthly) });
  }
  return budgets;
}
