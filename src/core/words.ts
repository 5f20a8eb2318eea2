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
  // Attachments run to megabytes: count UTF-16 units and subtract surrogate
  // pairs rather than iterating code points. A lone surrogate counts as one,
  // as it does when iterating.
  if (!HAS_SURROGATE.test(text)) return text.length;
  let n = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const high = text.charCodeAt(i);
    if (high >= 0xd800 && high <= 0xdbff) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

const HAS_SURROGATE = /[\ud800-\udfff]/;
