/**
 * How deeply a JSON text nests, checked on the raw text before it is parsed:
 * validation and everything after it walk a body recursively, so a body of
 * thousands of nested arrays would overflow the call stack (a 500) or take
 * seconds to describe. No request of the interface nests deeper than about
 * eight levels (a routing rule's permission map); the limit leaves ample room.
 */

/** Levels of objects and arrays a request body may nest; the body itself is level 1. */
export const MAX_BODY_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * Whether `text` opens more than `limit` objects and arrays inside one another,
 * counting brackets outside strings in one pass (strings are skipped with
 * `indexOf`, so text costs little). Malformed JSON is left to `JSON.parse`.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // The closing quote is the first one preceded by an even run of backslashes.
      for (;;) {
        i = text.indexOf('"', i + 1);
        if (i < 0) return false;
        let backslashes = 0;
        while (text.charCodeAt(i - 1 - backslashes) === BACKSLASH) backslashes++;
        if (backslashes % 2 === 0) break;
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}
