/**
 * What an operator's or a user's name may hold (decisions.md §13): text that
 * prints as itself. A name reaches terminals (`switchyard admin users list`,
 * `keys list`), logs and the console, so it may not carry what a terminal
 * obeys rather than shows: control characters (C0, DEL, C1: an ANSI escape, a
 * newline forging a row), the Unicode line and paragraph separators, and the
 * bidirectional formatting characters that reorder what follows them
 * (embeddings and overrides U+202A–U+202E, isolates U+2066–U+2069, and the
 * invisible direction marks U+200E, U+200F and U+061C, which only steer
 * reordering too). Other invisible characters stay allowed, such as the
 * zero-width joiner inside an emoji sequence. Pure: no I/O.
 */

/** Where a name goes wrong, for a message: the problem and the first offending character. */
export interface NameProblem {
  problem: string;
  /** The offending code point as `U+001B`, and its place (1-based, in code points). */
  character?: { code: string; at: number };
}

/** `Cc`: exactly C0 (U+0000–U+001F), DEL (U+007F) and C1 (U+0080–U+009F). */
const CONTROL = /\p{Cc}/u;
const SEPARATOR = /[\u2028\u2029]/u;
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
/** Blank: nothing but white space and invisible format characters. */
const BLANK = /^[\p{White_Space}\p{Cf}]*$/u;

/** `U+001B` for a code point. */
export function codePointLabel(codePoint: number): string {
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, "0")}`;
}

function firstMatch(text: string, pattern: RegExp): { code: string; at: number } | undefined {
  let at = 0;
  for (const char of text) {
    at++;
    if (pattern.test(char)) return { code: codePointLabel(char.codePointAt(0)!), at };
  }
  return undefined;
}

/** Null for a printable, non-blank name; else what is wrong with it (its length is checked apart). */
export function nameProblem(text: string): NameProblem | null {
  const checks: [RegExp, string][] = [
    [CONTROL, "control characters are not allowed"],
    [SEPARATOR, "line and paragraph separators are not allowed"],
    [BIDI, "bidirectional formatting characters are not allowed"],
  ];
  for (const [pattern, problem] of checks) {
    if (pattern.test(text)) return { problem, character: firstMatch(text, pattern) };
  }
  if (BLANK.test(text)) return { problem: "must not be blank" };
  return null;
}
