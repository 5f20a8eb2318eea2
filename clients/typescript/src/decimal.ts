/**
 * Exact sums of the service's decimal strings (decisions.md §10: plain
 * notation, trailing zeros trimmed, zero as "0"), on scaled BigInts: money is
 * never a JavaScript number here either, so a turn's total is the exact sum of
 * its calls' costs, the same under every runtime and in every browser.
 */

const DECIMAL = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/;

/** The value of a decimal string as digits and a scale; null when it is not one. */
function parse(text: string): { digits: bigint; scale: number } | null {
  const m = DECIMAL.exec(text);
  if (m === null) return null;
  const fraction = m[2] ?? "";
  return { digits: BigInt(m[1] + fraction), scale: fraction.length };
}

function format(digits: bigint, scale: number): string {
  if (digits === 0n) return "0";
  const text = digits.toString().padStart(scale + 1, "0");
  const whole = text.slice(0, text.length - scale);
  const fraction = text.slice(text.length - scale).replace(/0+$/, "");
  return fraction === "" ? whole : `${whole}.${fraction}`;
}

/** The exact sum of non-negative decimal strings; throws on one that is not. */
export function sumDecimals(values: readonly string[]): string {
  const parsed = values.map((v) => {
    const p = parse(v);
    if (p === null) throw new Error(`not a decimal string: "${v}"`);
    return p;
  });
  const scale = Math.max(0, ...parsed.map((p) => p.scale));
  const total = parsed.reduce(
    (sum, p) => sum + p.digits * 10n ** BigInt(scale - p.scale),
    0n,
  );
  return format(total, scale);
}
