/**
 * Usage across sessions (decisions.md §13): `GET /api/v1/usage?from&to` (the
 * caller's) and `GET /api/v1/admin/usage?from&to` (every user's, the
 * operator's). Dates are UTC `YYYY-MM-DD`, both inclusive; without them, this
 * UTC month. A bad date is 400 `invalid_request` naming the parameter.
 */
import { errorResponse, jsonResponse } from "../error_response.ts";
import type { Endpoint, RequestContext } from "../context.ts";
import {
  budgetView,
  dayString,
  type Period,
  periodEnd,
  periodUsageReport,
  usagePeriod,
} from "../../core/usage_period.ts";
import { budgetStates } from "../../store/budgets.ts";
import type { Queryable } from "../../store/db.ts";
import { listUsersUsage, type UserCostEvent } from "../../store/usage_period.ts";
import { budgetWindows } from "../../engine/budget_gate.ts";

function period(ctx: RequestContext): Period | Response {
  const found = usagePeriod({
    from: ctx.url.searchParams.get("from"),
    to: ctx.url.searchParams.get("to"),
  }, ctx.deps.now());
  // A bad query parameter is 400, not the 422 of a body failing validation (decisions.md §2).
  return found.ok ? found.value : errorResponse(found.failure, { status: 400 });
}

/** Each user's report over `p`, in the order of `ids`; `everyone`: `ids` are every user. */
async function reports(
  db: Queryable,
  ids: readonly string[],
  p: Period,
  now: Date,
  everyone = false,
) {
  const events = await listUsersUsage(db, everyone ? null : ids, p.from, periodEnd(p));
  const byUser = new Map<string, UserCostEvent[]>();
  for (const e of events) {
    const list = byUser.get(e.user_id) ?? [];
    list.push(e);
    byUser.set(e.user_id, list);
  }
  const states = await budgetStates(db, ids, { now, ...budgetWindows(now) });
  return ids.map((id) => ({
    user_id: id,
    ...periodUsageReport(byUser.get(id) ?? [], p, budgetView(states.get(id) ?? null, now)),
  }));
}

export const getUserUsage: Endpoint = {
  auth: "bearer",
  async handle(ctx) {
    const p = period(ctx);
    if (p instanceof Response) return p;
    const [mine] = await reports(ctx.deps.db, [ctx.principal.userId], p, ctx.deps.now());
    const { user_id: _, ...report } = mine;
    return jsonResponse(report);
  },
};

export const getAdminUsage: Endpoint = {
  auth: "operator",
  async handle(ctx) {
    const p = period(ctx);
    if (p instanceof Response) return p;
    // Every user, the ones without usage in the period too, oldest first.
    const users = await ctx.deps.db.query<{ id: string; name: string | null }>(
      "SELECT id, name FROM users ORDER BY created_at, id",
    );
    const all = await reports(ctx.deps.db, users.map((u) => u.id), p, ctx.deps.now(), true);
    return jsonResponse({
      from: dayString(p.from),
      to: dayString(p.to),
      users: all.map((r, i) => ({ user_id: r.user_id, name: users[i].name, ...withoutIds(r) })),
    });
  },
};

function withoutIds<T extends { user_id: string; from: string; to: string }>(r: T) {
  const { user_id: _, from: _from, to: _to, ...rest } = r;
  return rest;
}
