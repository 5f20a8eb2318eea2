/**
 * Path normalisation (decisions.md §5). The service never touches the
 * client's filesystem; this is string work so globs see one spelling of a path.
 */

function isAbsolute(path: string): boolean {
  return path.startsWith("/") || /^[A-Za-z]:\//.test(path);
}

/** An empty, `.` or `..` segment (a leading `/` aside): without one a path is already resolved. */
const UNRESOLVED = /\/\/|\/$|(?:^|\/)\.\.?(?:\/|$)/;

/** Resolves `.`, `..` and empty segments; keeps a leading `..` a relative path cannot lose. */
function resolveSegments(path: string): string {
  // Paths arrive resolved far more often than not, and there are many per turn.
  if (!UNRESOLVED.test(path)) return path;
  const absolute = isAbsolute(path);
  const out: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      const last = out[out.length - 1];
      if (
        last !== undefined && last !== ".." && !(absolute && out.length === 1 && /:$/.test(last))
      ) {
        out.pop();
      } else if (!absolute) {
        out.push("..");
      }
      continue;
    }
    out.push(segment);
  }
  const joined = out.join("/");
  return path.startsWith("/") ? `/${joined}` : joined;
}

/**
 * Backslashes become `/`, `./` and `..` are resolved, and an absolute path under
 * `root` is made relative to it. Other absolute paths stay absolute.
 */
export function normalisePath(path: string, root: string | null = null): string {
  const resolved = resolveSegments(path.replaceAll("\\", "/"));
  if (root === null || root === "" || !isAbsolute(resolved)) return resolved;
  const base = resolveSegments(root.replaceAll("\\", "/"));
  if (base === "" || base === "/") return resolved.replace(/^\/+/, "");
  if (resolved === base) return "";
  return resolved.startsWith(`${base}/`) ? resolved.slice(base.length + 1) : resolved;
}

/** A path from a `diff --git a/<old> b/<new>` header line. */
export interface DiffHeader {
  old_path: string;
  new_path: string;
}

function unquote(part: string): string {
  return part.length >= 2 && part.startsWith('"') && part.endsWith('"')
    ? part.slice(1, -1).replaceAll('\\"', '"').replaceAll("\\\\", "\\")
    : part;
}

/** Splits the rest of a header (`a/x b/y`), preferring the split where both names agree. */
function splitHeader(rest: string): DiffHeader | null {
  const quoted = /^("(?:[^"\\]|\\.)*"|\S+) ("(?:[^"\\]|\\.)*")$/.exec(rest);
  const sameLength = (rest.length - 5) / 2;
  let left: string;
  let right: string;
  if (
    Number.isInteger(sameLength) && rest.startsWith("a/") &&
    rest.slice(2, 2 + sameLength) === rest.slice(5 + sameLength) &&
    rest.slice(2 + sameLength, 5 + sameLength) === " b/"
  ) {
    left = rest.slice(0, 2 + sameLength);
    right = rest.slice(3 + sameLength);
  } else if (quoted !== null) {
    left = quoted[1];
    right = quoted[2];
  } else {
    const at = rest.lastIndexOf(" b/");
    if (at < 0) return null;
    left = rest.slice(0, at);
    right = rest.slice(at + 1);
  }
  left = unquote(left);
  right = unquote(right);
  if (!left.startsWith("a/") || !right.startsWith("b/")) return null;
  return { old_path: left.slice(2), new_path: right.slice(2) };
}

/** Every `diff --git` header of a unified git diff, in order. */
export function diffHeaders(diff: string | null): DiffHeader[] {
  if (diff === null || diff === "") return [];
  const headers: DiffHeader[] = [];
  for (const line of diff.split(/\r?\n/)) {
    if (!line.startsWith("diff --git ")) continue;
    const header = splitHeader(line.slice("diff --git ".length));
    if (header !== null) headers.push(header);
  }
  return headers;
}
