/**
 * Typo tolerance for keywords (decisions.md §4): optimal-string-alignment
 * distance (Levenshtein plus adjacent transposition, each substring edited
 * once), over code points so a non-Latin word counts letters, not UTF-16 units.
 */
import { codePointLength } from "./words.ts";

export function osaDistance(a: string, b: string): number {
  const s = Array.from(a);
  const t = Array.from(b);
  const d: number[][] = [];
  for (let i = 0; i <= s.length; i++) {
    d.push([i]);
    for (let j = 1; j <= t.length; j++) d[i].push(i === 0 ? j : 0);
  }
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) {
        best = Math.min(best, d[i - 2][j - 2] + 1);
      }
      d[i][j] = best;
    }
  }
  return d[s.length][t.length];
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
  if (word.includes(keywordWord) || keywordWord.includes(word)) return false;
  return osaDistance(word, keywordWord) <= allowance;
}
