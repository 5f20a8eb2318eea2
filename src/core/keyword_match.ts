/**
 * Whole-word keyword matching (decisions.md §4). A keyword of several words
 * matches the same words in sequence; typo tolerance applies word by word,
 * each keyword word with the allowance of its own length, and a sequence with
 * any typo word is a typo match.
 */
import { isTypoOf } from "./typo_distance.ts";
import { words } from "./words.ts";

export type KeywordMatchKind = "exact" | "typo";

function matchAt(
  prompt: readonly string[],
  keyword: readonly string[],
  at: number,
  allowTypos: boolean,
): KeywordMatchKind | null {
  let kind: KeywordMatchKind = "exact";
  for (let k = 0; k < keyword.length; k++) {
    const word = prompt[at + k];
    if (word === keyword[k]) continue;
    if (!allowTypos || !isTypoOf(word, keyword[k])) return null;
    kind = "typo";
  }
  return kind;
}

/** An exact occurrence anywhere in the prompt beats a typo occurrence. */
export function matchKeyword(
  promptWords: readonly string[],
  keyword: string,
  allowTypos: boolean,
): KeywordMatchKind | null {
  const kw = words(keyword);
  if (kw.length === 0) return null;
  let found: KeywordMatchKind | null = null;
  for (let at = 0; at + kw.length <= promptWords.length; at++) {
    const kind = matchAt(promptWords, kw, at, allowTypos);
    if (kind === "exact") return "exact";
    if (kind === "typo") found = "typo";
  }
  return found;
}
