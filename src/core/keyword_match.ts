/**
 * Whole-word keyword matching (decisions.md §4). A keyword of several words
 * matches the same words in sequence; typo tolerance applies word by word,
 * each keyword word with the allowance of its own length, and a sequence with
 * any typo word is a typo match.
 */
import { codePointMask, isTypoOf, maskDistanceBound, typoAllowance } from "./typo_distance.ts";
import { codePointLength, words } from "./words.ts";

export type KeywordMatchKind = "exact" | "typo";

/** A word with what the cheap typo filters need: code point length and mask. */
interface SizedWord {
  text: string;
  length: number;
  mask: number;
}

/** A keyword split into words, each with its typo allowance. */
interface SplitKeyword {
  words: readonly SizedWord[];
  allowances: readonly number[];
}

/**
 * A prompt's words by position, and each distinct word once, grouped by
 * length: a keyword word is looked up, or compared for typos with the words
 * of a length within its allowance, before any position is walked.
 */
interface PromptIndex {
  positions: readonly SizedWord[];
  present: ReadonlySet<string>;
  byLength: ReadonlyMap<number, readonly SizedWord[]>;
}

const sized = (text: string): SizedWord => ({
  text,
  length: codePointLength(text),
  mask: codePointMask(text),
});

/**
 * A typo of `keyword` within its allowance. The length difference and the
 * mask bound are lower bounds on the distance: most pairs stop there.
 */
function isTypoWord(word: SizedWord, keyword: SizedWord, allowance: number): boolean {
  if (allowance === 0) return false;
  if (Math.abs(word.length - keyword.length) > allowance) return false;
  if (maskDistanceBound(word.mask, keyword.mask) > allowance) return false;
  return isTypoOf(word.text, keyword.text);
}

/** Whether some word of the prompt is `keyword` word `k`, or (when allowed) a typo of it. */
function occurs(prompt: PromptIndex, keyword: SplitKeyword, k: number, allowTypos: boolean) {
  const word = keyword.words[k];
  if (prompt.present.has(word.text)) return true;
  const allowance = keyword.allowances[k];
  if (!allowTypos || allowance === 0) return false;
  // Plain loops: this runs for every keyword word of every rule, and a closure for each was a
  // quarter of what a decision allocated.
  for (let length = word.length - allowance; length <= word.length + allowance; length++) {
    const candidates = prompt.byLength.get(length);
    if (candidates === undefined) continue;
    for (const candidate of candidates) if (isTypoWord(candidate, word, allowance)) return true;
  }
  return false;
}

function matchAt(
  prompt: PromptIndex,
  keyword: SplitKeyword,
  at: number,
  allowTypos: boolean,
): KeywordMatchKind | null {
  let kind: KeywordMatchKind = "exact";
  for (let k = 0; k < keyword.words.length; k++) {
    const word = prompt.positions[at + k];
    if (word.text === keyword.words[k].text) continue;
    if (!allowTypos || !isTypoWord(word, keyword.words[k], keyword.allowances[k])) return null;
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
    split = { words: parts.map(sized), allowances: parts.map(typoAllowance) };
    SPLIT.set(keyword, split);
  }
  return split;
}

/** The index of a prompt, built once per prompt array (classification passes the same one). */
const INDEXES = new WeakMap<readonly string[], PromptIndex>();

function promptIndex(prompt: readonly string[]): PromptIndex {
  let index = INDEXES.get(prompt);
  if (index === undefined) {
    const positions = prompt.map(sized);
    const present = new Set<string>();
    const byLength = new Map<number, SizedWord[]>();
    for (const word of positions) {
      if (present.has(word.text)) continue;
      present.add(word.text);
      const same = byLength.get(word.length);
      if (same === undefined) byLength.set(word.length, [word]);
      else same.push(word);
    }
    index = { positions, present, byLength };
    INDEXES.set(prompt, index);
  }
  return index;
}

/** An exact occurrence anywhere in the prompt beats a typo occurrence. */
export function matchKeyword(
  promptWords: readonly string[],
  keyword: string,
  allowTypos: boolean,
): KeywordMatchKind | null {
  const kw = splitKeyword(keyword);
  const n = kw.words.length;
  if (n === 0) return null;
  const prompt = promptIndex(promptWords);
  // Every word of the keyword must occur somewhere before a sequence can.
  for (let k = 0; k < n; k++) if (!occurs(prompt, kw, k, allowTypos)) return null;
  if (n === 1) return prompt.present.has(kw.words[0].text) ? "exact" : "typo";
  let found: KeywordMatchKind | null = null;
  for (let at = 0; at + n <= promptWords.length; at++) {
    const kind = matchAt(prompt, kw, at, allowTypos);
    if (kind === "exact") return "exact";
    if (kind === "typo") found = "typo";
  }
  return found;
}
