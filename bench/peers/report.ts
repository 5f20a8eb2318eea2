/** Markdown tables for the peer benchmark, and the number formats they share. */

export type Cell = string | number;

const NUMBER = /^(-?[\d,.]+( MB| ms|×)?|—)$/;

/** Prints a markdown table, right-aligning the columns that hold only numbers. */
export function printTable(title: string, head: string[], rows: Cell[][]): void {
  const numeric = (i: number) => rows.every((row) => NUMBER.test(String(row[i])));
  console.log(`\n${title}\n`);
  console.log(`| ${head.join(" | ")} |`);
  console.log(`|${head.map((_, i) => (numeric(i) ? "---:" : "---")).join("|")}|`);
  for (const row of rows) console.log(`| ${row.join(" | ")} |`);
}

/** Milliseconds with two decimals ("—" when there is nothing to show). */
export const ms = (value: number | undefined) =>
  value === undefined || Number.isNaN(value) ? "—" : value.toFixed(2);

export const whole = (value: number | undefined) =>
  value === undefined || Number.isNaN(value) ? "—" : Math.round(value).toLocaleString("en-US");

/** ours / theirs as "1.23×"; "—" when either side is missing or theirs is zero. */
export function ratio(
  ours: number | undefined,
  theirs: number | undefined,
): string {
  if (
    ours === undefined || theirs === undefined || Number.isNaN(ours) ||
    Number.isNaN(theirs)
  ) {
    return "—";
  }
  return theirs === 0 ? "—" : `${(ours / theirs).toFixed(2)}×`;
}

export const verdict = (ok: boolean | undefined) =>
  ok === undefined ? "not measured" : ok ? "pass" : "**fail**";

/** A count with the first failure's message, fit for a table cell. */
export function failures(count: number, first: string | undefined): string {
  if (count === 0) return "0";
  const message = (first ?? "").replace(/\s+/g, " ").replaceAll("|", "\\|").slice(0, 120);
  return `${count} (${message})`;
}
