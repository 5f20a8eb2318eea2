/** How figures are shown: money exactly as the API wrote it, counts grouped, times local. */

export function money(amount: string | null | undefined, currency = "USD"): string {
  return amount === null || amount === undefined ? "not priced" : `${amount} ${currency}`;
}

export function count(n: number | null | undefined): string {
  return n === null || n === undefined ? "not reported" : n.toLocaleString("en-US");
}

export function when(timestamp: string): string {
  const d = new Date(timestamp);
  return Number.isNaN(d.getTime()) ? timestamp : d.toLocaleString();
}

export const modelRef = (provider: string | null, model: string | null) =>
  provider && model ? `${provider}/${model}` : "—";
