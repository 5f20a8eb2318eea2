/**
 * Glob matching with .gitignore habits (decisions.md §5) on top of picomatch:
 * `*` stays within a segment, `**` spans segments, dotfiles match, and a
 * pattern without `/` matches the file name at any depth. Beyond the four
 * stated habits we take two more from .gitignore that cannot surprise: a
 * leading `/` anchors to the workspace root, a trailing `/` names a directory
 * and matches everything below it. `!` has no special meaning.
 */
import picomatch from "picomatch";

const OPTIONS = { dot: true, nonegate: true, strictBrackets: true, windows: false } as const;

export type PathMatcher = (path: string) => boolean;

/** The picomatch pattern for a gitignore-style glob. */
export function toPicomatchPattern(glob: string): string {
  const directory = glob.length > 1 && glob.endsWith("/");
  let body = directory ? glob.slice(0, -1) : glob;
  const anchored = body.includes("/");
  if (body.startsWith("/")) body = body.slice(1);
  if (!anchored) body = `**/${body}`;
  return directory ? `${body}/**` : body;
}

/** `null` when the glob is invalid (empty, unbalanced brackets, braces or parentheses). */
export function compileGlob(glob: string): PathMatcher | null {
  if (glob === "" || glob === "/") return null;
  try {
    const isMatch = picomatch(toPicomatchPattern(glob), OPTIONS);
    return (path) => isMatch(path);
  } catch {
    return null;
  }
}

export function isValidGlob(glob: string): boolean {
  return compileGlob(glob) !== null;
}

/** Routing globs were validated with the request; one that fails anyway matches nothing. */
export function routingMatcher(globs: readonly string[]): PathMatcher {
  const matchers = globs.map(compileGlob).filter((m): m is PathMatcher => m !== null);
  return (path) => matchers.some((m) => m(path));
}

/** Privacy globs fail closed: an invalid one matches every path. */
export function privacyMatcher(globs: readonly string[]): PathMatcher {
  const matchers = globs.map((g) => compileGlob(g) ?? (() => true));
  return (path) => matchers.some((m) => m(path));
}
