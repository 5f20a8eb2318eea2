/**
 * `switchyard usage` without a session: the caller's usage across sessions
 * (decisions.md §13), by default this UTC month: the total, what is left of
 * the budget in the day and the month, the spend of each day that had any,
 * and each model. Amounts are the service's exact decimal strings, shown as
 * they are.
 */
import type { BudgetStatus, PeriodUsageReport } from "../types.ts";
import type { Context } from "./context.ts";
import { cacheText } from "./trace_table.ts";

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

function budgetLines(budget: BudgetStatus | null): string[] {
  if (budget === null) return ["budget:  none"];
  const lines: string[] = [];
  for (
    const [name, w] of [["daily", budget.daily], [
      "monthly",
      budget.monthly,
    ]] as const
  ) {
    if (w === null) continue;
    lines.push(
      `${name.padEnd(8)} ${w.left} of ${w.limit} ${budget.currency} left ` +
        `(${w.spent} spent, ${w.reserved} reserved; resets ${w.resets_at})`,
    );
  }
  return lines.length === 0 ? ["budget:  none"] : ["budget:", ...lines.map((l) => `  ${l}`)];
}

export function periodUsageText(r: PeriodUsageReport): string {
  const t = r.total;
  const lines = [
    `${r.from} to ${r.to}: ${t.request_count} requests, ${t.input_tokens ?? 0} in${cacheText(t)}, ${
      t.output_tokens ?? 0
    } out, ${t.estimated_cost ?? "0"} ${t.currency}`,
    ...budgetLines(r.budget),
  ];
  const days = r.by_day.filter((d) => d.request_count > 0);
  lines.push(days.length === 0 ? "by day:  no requests" : "by day:");
  for (const d of days) {
    lines.push(
      `  ${d.date}  ${d.estimated_cost} ${d.currency}  ${d.request_count} requests, ` +
        `${d.input_tokens} in, ${d.output_tokens} out`,
    );
  }
  if (r.by_model.length > 0) lines.push("by model:");
  for (const m of r.by_model) {
    const cost = m.estimated_cost === undefined ? "" : `, ${m.estimated_cost} ${m.currency}`;
    lines.push(
      `  ${m.provider}/${m.model}: ${m.request_count} requests${cost}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

export async function periodUsage(
  ctx: Context,
  o: { from?: string; to?: string; json?: boolean },
): Promise<void> {
  const report = await ctx.client.usage({ from: o.from, to: o.to });
  ctx.term.out(o.json ? json(report) : periodUsageText(report));
}
