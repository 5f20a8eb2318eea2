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
function compileUncached(glob: string): PathMatcher | null {
  if (glob === "" || glob === "/") return null;
  try {
    // What picomatch's own matcher does for these options, without the result
    // object it builds on every call: the pattern itself, else its regex.
    const pattern = toPicomatchPattern(glob);
    const regex = picomatch.makeRe(pattern, OPTIONS);
    return (path) => path !== "" && (path === pattern || regex.test(path));
  } catch {
    return null;
  }
}

/**
 * Compiling a glob costs far more than matching it, and a policy's globs are
 * the same turn after turn: compiled matchers are kept, keyed by the glob. A
 * matcher is a pure function of its glob, so the memo changes no answer.
 */
const COMPILED = new Map<string, PathMatcher | null>();
const MAX_COMPILED = 4096;

export function compileGlob(glob: string): PathMatcher | null {
  const known = COMPILED.get(glob);
  if (known !== undefined || COMPILED.has(glob)) return known ?? null;
  if (COMPILED.size >= MAX_COMPILED) COMPILED.clear();
  const matcher = compileUncached(glob);
  COMPILED.set(glob, matcher);
  return matcher;
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
