/**
 * Whole-word keyword matching (decisions.md §4). A keyword of several words
 * matches the same words in sequence; typo tolerance applies word by word,
 * each keyword word with the allowance of its own length, and a sequence with
 * any typo word is a typo match.
 */
import { isTypoOf, typoAllowance } from "./typo_distance.ts";
import { codePointLength, words } from "./words.ts";

export type KeywordMatchKind = "exact" | "typo";

/** A keyword split into words, with each word's length and typo allowance. */
interface SplitKeyword {
  words: readonly string[];
  lengths: readonly number[];
  allowances: readonly number[];
}

function matchAt(
  prompt: readonly string[],
  promptLengths: readonly number[],
  keyword: SplitKeyword,
  at: number,
  allowTypos: boolean,
): KeywordMatchKind | null {
  let kind: KeywordMatchKind = "exact";
  for (let k = 0; k < keyword.words.length; k++) {
    const word = prompt[at + k];
    if (word === keyword.words[k]) continue;
    if (!allowTypos) return null;
    // The distance is at least the difference in length: most pairs stop here.
    const allowance = keyword.allowances[k];
    if (Math.abs(promptLengths[at + k] - keyword.lengths[k]) > allowance) return null;
    if (!isTypoOf(word, keyword.words[k])) return null;
    kind = "typo";
  }
  return kind;
}

/**
 * A policy's keywords are the same turn after turn, and splitting them
 * (NFC, case folding) is the costly part of a comparison: keep the split.
 */
const SPLIT = new Map<string, SplitKeyword>();
const MAX_SPLIT = 8192;

function splitKeyword(keyword: string): SplitKeyword {
  let split = SPLIT.get(keyword);
  if (split === undefined) {
    if (SPLIT.size >= MAX_SPLIT) SPLIT.clear();
    const parts = words(keyword);
    split = {
      words: parts,
      lengths: parts.map(codePointLength),
      allowances: parts.map(typoAllowance),
    };
    SPLIT.set(keyword, split);
  }
  return split;
}

/** Word lengths of a prompt, computed once per prompt array. */
const PROMPT_LENGTHS = new WeakMap<readonly string[], readonly number[]>();

function lengthsOf(prompt: readonly string[]): readonly number[] {
  let lengths = PROMPT_LENGTHS.get(prompt);
  if (lengths === undefined) {
    lengths = prompt.map(codePointLength);
    PROMPT_LENGTHS.set(prompt, lengths);
  }
  return lengths;
}

/** An exact occurrence anywhere in the prompt beats a typo occurrence. */
export function matchKeyword(
  promptWords: readonly string[],
  keyword: string,
  allowTypos: boolean,
): KeywordMatchKind | null {
  const kw = splitKeyword(keyword);
  if (kw.words.length === 0) return null;
  const lengths = lengthsOf(promptWords);
  let found: KeywordMatchKind | null = null;
  for (let at = 0; at + kw.words.length <= promptWords.length; at++) {
    const kind = matchAt(promptWords, lengths, kw, at, allowTypos);
    if (kind === "exact") return "exact";
    if (kind === "typo") found = "typo";
  }
  return found;
}
