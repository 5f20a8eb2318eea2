/**
 * Text a user stores and every list reads back whole, bounded (decisions.md
 * §2): a session's `title` and `scope` hold at most 1,000 characters each, so
 * one user's sessions list cannot grow without end. A character is a Unicode
 * code point: an emoji or a CJK character beyond the Basic Multilingual Plane
 * counts one, as a person counts it, not the two UTF-16 units of JavaScript's
 * `length`. (A flag or a family emoji is several code points, as in every
 * other system that counts code points; grapheme clusters would make the
 * limit depend on the Unicode version of the runtime.)
 */
import { type Type, type } from "./ark.ts";

/** The most characters a session's `title` or `scope` holds. */
export const MAX_SESSION_TEXT = 1000;

/**
 * How many code points `text` has when that is more than `limit`, else null.
 * A string of no more than `limit` UTF-16 units is within it uncounted (a code
 * point is one or two units), so an ordinary title costs one comparison.
 */
export function codePointsBeyond(text: string, limit: number): number | null {
  if (text.length <= limit) return null;
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point (unpaired ones are refused earlier,
    // by unstorable_text.ts, and count one each here).
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count > limit ? count : null;
}

/** What a too-long string was expected to be, as the error message says it. */
export function atMostCharacters(limit: number): string {
  return `at most ${limit} characters`;
}

/**
 * A string of at most `limit` code points. Longer: the field's path, then
 * "must be at most 1000 characters (was 1001)"; the error's `meta.limit`
 * becomes `details.limit` (validation.ts).
 */
export function boundedText(limit: number): Type<string> {
  return type("string").narrow((text, ctx) => {
    const count = codePointsBeyond(text, limit);
    return count === null ||
      ctx.reject({ expected: atMostCharacters(limit), actual: `${count}`, meta: { limit } });
  });
}
