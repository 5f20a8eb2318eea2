/**
 * Splitting user text into words for keyword matching (decisions.md §4): on
 * every character that is neither a letter nor a digit, Unicode-aware, case
 * folded. Text is put in NFC first so a precomposed and a decomposed accent
 * give the same word.
 */

const SEPARATOR = /[^\p{L}\p{N}]+/u;

export function words(text: string): string[] {
  return text.normalize("NFC").toLowerCase().split(SEPARATOR).filter((w) => w !== "");
}

/** Length in Unicode code points, the unit of every length rule in the spec. */
export function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}
