/**
 * Text the service cannot keep (issue 11, item 7): a NUL character (U+0000)
 * or an unpaired UTF-16 surrogate. PostgreSQL `text` and `jsonb` refuse NUL
 * outright, and a lone surrogate is not Unicode: UTF-8 (the database, the
 * provider's wire, our own responses) can only replace it with U+FFFD, so
 * nothing would be stored or sent faithfully. Every string of a request —
 * body values, object keys, query parameters — is checked here, once, at the
 * edge, and refused naming the field, before anything is read or written.
 */
import { type Failure, failure } from "../core/errors.ts";

/** JSON escapes of NUL or of a surrogate half: the only way they can be in a valid body. */
const SUSPECT_ESCAPE = /\\u(?:0000|d[89a-f])/i;

/** A surrogate half without its partner (no `u` flag: the regex sees UTF-16 code units). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** What is wrong with a string, or null when it is storable text. */
export function unstorableReason(text: string): string | null {
  if (text.includes("\u0000")) return "contains a NUL character (U+0000), which cannot be stored";
  const lone = LONE_SURROGATE.exec(text);
  if (lone === null) return null;
  const code = lone[0].charCodeAt(0).toString(16).toUpperCase();
  return `contains an unpaired UTF-16 surrogate (U+${code}), which is not Unicode text`;
}

/** A field's path; a key that is no plain name is quoted, its bad characters as JSON escapes. */
const join = (path: string, key: string) =>
  /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)
    ? (path === "" ? key : `${path}.${key}`)
    : `${path}[${JSON.stringify(key)}]`;

/**
 * The first unstorable string of a parsed JSON body, in document order, as a
 * 422 `invalid_request` failure naming its path. `raw` is the body's text: a
 * body without a suspect escape is clean and is not walked at all.
 */
export function unstorableInBody(value: unknown, raw: string): Failure | null {
  if (!SUSPECT_ESCAPE.test(raw)) return null;
  // An explicit stack, so a deeply nested body cannot overflow the call stack.
  const stack: [unknown, string][] = [[value, ""]];
  while (stack.length > 0) {
    const [node, path] = stack.pop()!;
    if (typeof node === "string") {
      const reason = unstorableReason(node);
      if (reason !== null) return refusal(path, `invalid request body: ${path}: ${reason}`);
    } else if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push([node[i], `${path}[${i}]`]);
    } else if (typeof node === "object" && node !== null) {
      const entries = Object.entries(node);
      for (let i = entries.length - 1; i >= 0; i--) {
        stack.push([entries[i][1], join(path, entries[i][0])]);
        // Pushed last, so a bad key is found before anything beneath it.
        stack.push([entries[i][0], join(path, entries[i][0])]);
      }
    }
  }
  return null;
}

/** The first query parameter (name or value) holding unstorable text, as a 400 failure. */
export function unstorableInQuery(url: URL): Failure | null {
  for (const [name, value] of url.searchParams) {
    const reason = unstorableReason(name) ?? unstorableReason(value);
    if (reason !== null) {
      const path = join("query", name);
      return refusal(path, `invalid query parameter: ${path}: ${reason}`);
    }
  }
  return null;
}

function refusal(path: string, message: string): Failure {
  return failure("invalid_request", message, { path });
}
