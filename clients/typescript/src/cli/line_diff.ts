/**
 * A line diff of two small texts (golden files): the longest common
 * subsequence of lines, printed as `-` (golden) and `+` (now) lines with up to
 * `context` unchanged lines around each change.
 */
export function lineDiff(before: string, after: string, context = 2): string {
  const a = before.split("\n");
  const b = after.split("\n");
  // lcs[i][j]: common lines of a[i..] and b[j..].
  const lcs = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const ops: { mark: " " | "-" | "+"; line: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      ops.push({ mark: " ", line: a[i++] });
      j++;
    } else if (j < b.length && (i === a.length || lcs[i][j + 1] >= lcs[i + 1][j])) {
      ops.push({ mark: "+", line: b[j++] });
    } else {
      ops.push({ mark: "-", line: a[i++] });
    }
  }
  const near = ops.map((_, k) =>
    ops.slice(Math.max(0, k - context), k + context + 1).some((op) => op.mark !== " ")
  );
  const out: string[] = [];
  ops.forEach((op, k) => {
    if (near[k]) out.push(`${op.mark} ${op.line}`);
    else if (near[k - 1]) out.push("  …");
  });
  return out.join("\n");
}
