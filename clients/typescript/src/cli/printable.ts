/**
 * Stored text as a terminal line can show it: a user's or a key's name, a
 * session's title. What a terminal would obey rather than show is written as
 * an escape, so a stored name cannot colour, clear or move the screen, start
 * a new row in a table or reorder the rest of a line: control characters (C0,
 * DEL, C1) as `\n`, `\r`, `\t` or `\x1b`, the line and paragraph separators
 * and the bidirectional formatting characters as `\u2028`, `\u202e`. The
 * service refuses these in names it is given now; names stored before, and
 * text of other services, may still hold them.
 */

const UNPRINTABLE = /[\p{Cc}\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function escape(char: string): string {
  const named = NAMED[char];
  if (named !== undefined) return named;
  const code = char.codePointAt(0)!;
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** `text` with every character a terminal would obey written as its escape. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, escape);
}

/**
 * What JSON.stringify leaves raw inside strings and a terminal still obeys:
 * DEL, C1 and the separators and bidi formatting (it escapes C0 itself, so a
 * raw C0 in its output is the layout's own newline).
 */
const RAW_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `value` as indented JSON whose strings are exact and whose text is safe to print. */
export function printableJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    RAW_IN_JSON,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
