/**
 * The operator's endpoints (decisions.md §13), under `/api/v1/admin/`, which
 * exist only while `router.auth.operator_token` is set: add a user (with its
 * first key, shown once), list every user with its budget and this UTC day's
 * and month's spend, and rename, disable, enable or budget one.
 */
import { isUuid } from "../../core/credential_format.ts";
import { ServiceError } from "../../core/errors.ts";
import { budgetWindows } from "../../engine/budget_gate.ts";
import { budgetStates, findUserBudgets, plainDecimal, setUserBudget } from "../../store/budgets.ts";
import type { Queryable } from "../../store/db.ts";
import { listUserOverviews, updateUser, type UserOverviewRow } from "../../store/users.ts";
import { compiled, type Type, type } from "../ark.ts";
import { readJsonObject } from "../body.ts";
import { closedObject } from "../closed_object.ts";
import type { Deps, Endpoint } from "../context.ts";
import { jsonResponse } from "../error_response.ts";
import { validate } from "../validation.ts";
import { createUser } from "./auth.ts";
import { Name } from "../names.ts";

/**
 * A budget amount: US dollars as a decimal string (decisions.md §10), at most
 * 12 digits before the point and 10 after; a JSON number is refused, so no
 * amount is ever rounded on its way in. `null` means no limit.
 */
const MONEY = /^[0-9]{1,12}(\.[0-9]{1,10})?$/;
const Money = type("unknown").narrow((value, ctx) =>
  value === null || (typeof value === "string" && MONEY.test(value)) ||
  ctx.reject({
    expected:
      'a decimal string of US dollars such as "5" or "12.50" (at most 12 digits before the point and 10 after), or null',
    // Quoted back only when it is short printable ASCII: a hostile string is not echoed.
    actual: typeof value === "string"
      ? /^[\x20-\x7e]{0,40}$/.test(value) ? `"${value}"` : "another string"
      : value === undefined
      ? "absent"
      : typeof value,
  })
) as unknown as Type<string | null>;

// The operator's bodies refuse any field they do not declare, at every level (decisions.md §13).
const AddUser = compiled(closedObject({ name: Name }));

const UpdateUser = compiled(closedObject({
  "name?": Name.or("null"),
  "disabled?": "boolean",
  "budget?": closedObject({ "daily?": Money, "monthly?": Money }).or("null"),
}));

async function userViews(db: Queryable, deps: Deps, userId: string | null = null) {
  const now = deps.now();
  const w = budgetWindows(now);
  const rows = await listUserOverviews(
    db,
    { dayStart: w.day.from, monthStart: w.month.from },
    userId,
  );
  // A budgeted user's spend is what the budget counts (its ledger: encrypted and deleted
  // sessions' calls included); anyone else's, the usage events'.
  const states = await budgetStates(db, rows.map((r) => r.id), { now, ...w });
  return rows.map((row: UserOverviewRow) => {
    const state = states.get(row.id);
    return {
      user_id: row.id,
      name: row.name,
      created_at: row.created_at.toISOString(),
      last_seen_at: row.last_seen_at === null ? null : row.last_seen_at.toISOString(),
      disabled: row.disabled,
      budget: state === undefined ? null : { daily: state.daily, monthly: state.monthly },
      spend: state === undefined
        ? { day: plainDecimal(row.spend_day), month: plainDecimal(row.spend_month) }
        : { day: state.daySpent, month: state.monthSpent },
    };
  });
}

export const addUser: Endpoint = {
  auth: "operator",
  async handle({ request, deps }) {
    const body = validate(
      AddUser,
      await readJsonObject(request, deps.config.limits.maxRequestBodyBytes),
    );
    // The first key of a user the operator adds is named after who made it.
    const user = await createUser(deps, { name: body.name, keyName: "initial" });
    return jsonResponse({ user_id: user.userId, name: body.name, api_key: user.apiKey }, 201);
  },
};

export const listUsers: Endpoint = {
  auth: "operator",
  async handle({ deps }) {
    return jsonResponse({ users: await userViews(deps.db, deps) });
  },
};

const userNotFound = (id: string) => ServiceError.of("not_found", `user not found: "${id}"`);

/**
 * Partial update: an absent field is left as it is. In `budget`, an absent
 * window keeps its limit and `null` removes it; `budget: null` removes both.
 */
export const updateUserEndpoint: Endpoint = {
  auth: "operator",
  async handle({ request, params, deps }) {
    const body = validate(
      UpdateUser,
      await readJsonObject(request, deps.config.limits.maxRequestBodyBytes),
    );
    const raw = params.user_id;
    if (!isUuid(raw)) throw userNotFound(raw);
    const id = raw.toLowerCase();
    const now = deps.now();
    const view = await deps.db.transaction(async (tx) => {
      const found = await updateUser(tx, id, { name: body.name, disabled: body.disabled }, now);
      if (!found) return null;
      if (body.budget !== undefined) {
        const current = (await findUserBudgets(tx, [id])).get(id) ?? { daily: null, monthly: null };
        const next = body.budget === null ? { daily: null, monthly: null } : {
          daily: body.budget.daily === undefined ? current.daily : body.budget.daily,
          monthly: body.budget.monthly === undefined ? current.monthly : body.budget.monthly,
        };
        await setUserBudget(tx, id, next, now);
      }
      return (await userViews(tx, deps, id))[0];
    });
    if (view === null || view === undefined) throw userNotFound(raw);
    return jsonResponse({ user: view });
  },
};
