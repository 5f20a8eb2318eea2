/**
 * `switchyard admin users add NAME | list | rename ID NAME | disable ID |
 * enable ID | budget ID [--daily USD] [--monthly USD]`: the operator's
 * commands, with the service's operator token from SWITCHYARD_OPERATOR_TOKEN
 * (never a flag, so it stays out of shell history and process lists).
 */
import process from "node:process";
import { type AdminUser, createAdminClient } from "../admin_client.ts";
import type { Terminal } from "./terminal.ts";
import { printable, printableJson } from "./printable.ts";
import { UsageError } from "./usage_error.ts";

export const ADMIN_USAGE = "usage: switchyard admin users add NAME | list | rename ID NAME | " +
  "disable ID | enable ID | budget ID [--daily USD|none] [--monthly USD|none]";

/** A budget flag: dollars as a decimal string, or `none` for no limit. */
function amount(
  value: string | undefined,
  name: string,
): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === "none") return null;
  if (!/^\d+(\.\d+)?$/.test(value)) {
    throw new UsageError(
      `--${name} expects US dollars such as 5 or 12.50, or none; got "${value}"`,
    );
  }
  return value;
}

function userLine(u: AdminUser): string {
  const budget = u.budget === null
    ? "no budget"
    : `budget ${u.budget.daily ?? "-"}/day ${u.budget.monthly ?? "-"}/month`;
  return `${u.user_id}  ${u.name === null ? "(no name)" : printable(u.name)}  ${
    u.disabled ? "disabled" : "enabled"
  }  ` +
    `spent ${u.spend.day} today ${u.spend.month} this month  ${budget}  last seen ${
      u.last_seen_at ?? "never"
    }\n`;
}

export async function admin(
  url: string,
  term: Terminal,
  args: string[],
  flags: { daily?: string; monthly?: string; json?: boolean },
  env: Record<string, string | undefined> = process.env,
): Promise<void> {
  const [group, action, id, name, extra] = args;
  if (group !== "users" || action === undefined || extra !== undefined) {
    throw new UsageError(ADMIN_USAGE);
  }
  const operatorToken = env.SWITCHYARD_OPERATOR_TOKEN;
  if (!operatorToken) {
    throw new Error(
      "set SWITCHYARD_OPERATOR_TOKEN to the service's operator token (router.auth.operator_token)",
    );
  }
  const users = createAdminClient({ baseUrl: url, operatorToken }).users;
  const json = (value: unknown) => term.out(`${printableJson(value)}\n`);
  const need = (value: string | undefined, count = 1) => {
    if (value === undefined || (count === 1 && name !== undefined)) {
      throw new UsageError(ADMIN_USAGE);
    }
    return value;
  };
  const show = (user: AdminUser) => flags.json ? json(user) : term.out(userLine(user));
  switch (action) {
    case "add": {
      const added = await users.add(need(id));
      if (flags.json) return json(added);
      term.err(
        `added user ${added.user_id} "${printable(added.name)}": its API key is shown only now\n`,
      );
      return term.out(`${added.api_key}\n`);
    }
    case "list": {
      if (id !== undefined) throw new UsageError(ADMIN_USAGE);
      const list = await users.list();
      if (flags.json) return json(list);
      for (const user of list) term.out(userLine(user));
      return;
    }
    case "rename":
      if (name === undefined) throw new UsageError(ADMIN_USAGE);
      return show(await users.update(need(id, 2), { name }));
    case "disable":
    case "enable":
      return show(
        await users.update(need(id), { disabled: action === "disable" }),
      );
    case "budget": {
      const daily = amount(flags.daily, "daily");
      const monthly = amount(flags.monthly, "monthly");
      if (daily === undefined && monthly === undefined) {
        throw new UsageError(
          `${ADMIN_USAGE}\n(budget wants --daily, --monthly or both)`,
        );
      }
      const budget = {
        ...(daily === undefined ? {} : { daily }),
        ...(monthly === undefined ? {} : { monthly }),
      };
      return show(await users.update(need(id), { budget }));
    }
    default:
      throw new UsageError(ADMIN_USAGE);
  }
}
