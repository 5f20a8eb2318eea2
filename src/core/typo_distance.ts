/**
 * Typo tolerance for keywords (decisions.md §4): optimal-string-alignment
 * distance (Levenshtein plus adjacent transposition, each substring edited
 * once), over code points so a non-Latin word counts letters, not UTF-16 units.
 */
import { codePointLength } from "./words.ts";

const HAS_SURROGATE = /[\ud800-\udfff]/;

/** Code points of `text`, as UTF-16 units when it has no surrogates (the common case). */
const units = (text: string): string | string[] =>
  HAS_SURROGATE.test(text) ? Array.from(text) : text;

/** Scratch rows, reused: keyword comparisons run by the thousand per decision. */
let rows = [new Int32Array(16), new Int32Array(16), new Int32Array(16)];

/**
 * The distance, or `max + 1` as soon as it is certain to exceed `max`: three
 * rolling rows over code points, stopping when a whole row is above `max`.
 */
export function osaDistance(a: string, b: string, max = Infinity): number {
  const s = units(a);
  const t = units(b);
  if (Math.abs(s.length - t.length) > max) return max + 1;
  if (rows[0].length <= t.length) rows = rows.map(() => new Int32Array(t.length + 1));
  let [before, previous, current] = rows;
  for (let j = 0; j <= t.length; j++) previous[j] = j;
  for (let i = 1; i <= s.length; i++) {
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let best = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) {
        best = Math.min(best, before[j - 2] + 1);
      }
      current[j] = best;
      if (best < rowMin) rowMin = best;
    }
    if (rowMin > max) return max + 1;
    [before, previous, current] = [previous, current, before];
  }
  return previous[t.length];
}

/**
 * The code points of `word` as a 32-bit set, each code point hashed to one
 * bit (its low five bits). Lone surrogates count as code points, as in
 * `osaDistance`.
 */
export function codePointMask(word: string): number {
  let mask = 0;
  for (let i = 0; i < word.length; i++) {
    const c = word.codePointAt(i)!;
    if (c > 0xffff) i++;
    mask |= 1 << (c & 31);
  }
  return mask;
}

function bitCount(n: number): number {
  n = n - ((n >>> 1) & 0x55555555);
  n = (n & 0x33333333) + ((n >>> 2) & 0x33333333);
  return (((n + (n >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/**
 * A lower bound on `osaDistance` from two `codePointMask`s, far cheaper than
 * the table. An insertion, deletion or substitution adds or removes at most
 * one code point on each side and a transposition none, so the distance is
 * at least the number of code points one word has and the other lacks. Each
 * bit set in one mask and not the other stands for at least one such code
 * point (hashing only merges bits, making the count smaller), so the bound
 * never exceeds the true distance and filtering on it changes no answer.
 */
export function maskDistanceBound(a: number, b: number): number {
  return Math.max(bitCount(a & ~b), bitCount(b & ~a));
}

/** Edits tolerated for a keyword word: none under 5 code points, 1 for 5–8, 2 from 9. */
export function typoAllowance(keywordWord: string): number {
  const length = codePointLength(keywordWord);
  if (length >= 9) return 2;
  if (length >= 5) return 1;
  return 0;
}

/**
 * A typo match: within the allowance, and neither word contains the other
 * (so `review` never matches `reviews`, which is a different word).
 */
export function isTypoOf(word: string, keywordWord: string): boolean {
  if (word === keywordWord) return false;
  const allowance = typoAllowance(keywordWord);
  if (allowance === 0) return false;
  // The distance is at least the difference in length: skip the table when that alone is too much.
  if (Math.abs(codePointLength(word) - codePointLength(keywordWord)) > allowance) return false;
  if (word.includes(keywordWord) || keywordWord.includes(word)) return false;
  return osaDistance(word, keywordWord, allowance) <= allowance;
}
