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

/** A glob of nothing but letters, digits, `.`, `-`, `_`, `/`, `*` and `**`. */
const PLAIN_GLOB = /^[A-Za-z0-9._\/*-]+$/;

/**
 * Runs of letters and digits every path matching `glob` contains. In a plain
 * glob each letter and digit is a literal character of the pattern (only
 * brackets, braces, parentheses and escapes could make one optional or
 * negated), so a path lacking a run cannot match, nor equal the pattern made
 * from the glob. Other globs get none.
 */
export function requiredLiterals(glob: string): string[] {
  return PLAIN_GLOB.test(glob) ? glob.match(/[A-Za-z0-9]+/g) ?? [] : [];
}

interface CompiledGlob {
  matches: PathMatcher;
  literals: readonly string[];
}

/** `null` when the glob is invalid (empty, unbalanced brackets, braces or parentheses). */
function compileUncached(glob: string): CompiledGlob | null {
  if (glob === "" || glob === "/") return null;
  try {
    // What picomatch's own matcher does for these options, without the result
    // object it builds on every call: the pattern itself, else its regex.
    const pattern = toPicomatchPattern(glob);
    const regex = picomatch.makeRe(pattern, OPTIONS);
    // Most paths miss most globs; a substring search says so far sooner than the regex.
    const literals = requiredLiterals(glob);
    const matches = (path: string) => {
      if (path === "") return false;
      if (path === pattern) return true;
      for (const literal of literals) if (!path.includes(literal)) return false;
      return regex.test(path);
    };
    return { matches, literals };
  } catch {
    return null;
  }
}

/**
 * Compiling a glob costs far more than matching it, and a policy's globs are
 * the same turn after turn: compiled matchers are kept, keyed by the glob. A
 * matcher is a pure function of its glob, so the memo changes no answer.
 */
const COMPILED = new Map<string, CompiledGlob | null>();
const MAX_COMPILED = 4096;

function compiled(glob: string): CompiledGlob | null {
  const known = COMPILED.get(glob);
  if (known !== undefined || COMPILED.has(glob)) return known ?? null;
  if (COMPILED.size >= MAX_COMPILED) COMPILED.clear();
  const made = compileUncached(glob);
  COMPILED.set(glob, made);
  return made;
}

export function compileGlob(glob: string): PathMatcher | null {
  return compiled(glob)?.matches ?? null;
}

export function isValidGlob(glob: string): boolean {
  return compiled(glob) !== null;
}

/** Routing globs were validated with the request; one that fails anyway matches nothing. */
export function routingMatcher(globs: readonly string[]): PathMatcher {
  const matchers = globs.map(compileGlob).filter((m): m is PathMatcher => m !== null);
  return (path) => matchers.some((m) => m(path));
}

/** Paths tested against many globs, also joined, so a glob's literals are looked for once. */
export interface PathList {
  paths: readonly string[];
  joined: string;
}

export function pathList(paths: readonly string[]): PathList {
  return { paths, joined: paths.join("\n") };
}

/**
 * `routingMatcher(globs)` holds for some path of `list`. Every path is part of
 * the joined text, so a literal missing from it is missing from every path and
 * the glob can match none: it is skipped without testing each path.
 */
export function routingMatchesAny(globs: readonly string[], list: PathList): boolean {
  for (const glob of globs) {
    const entry = compiled(glob);
    if (entry === null || entry.literals.some((l) => !list.joined.includes(l))) continue;
    if (list.paths.some(entry.matches)) return true;
  }
  return false;
}

/** Privacy globs fail closed: an invalid one matches every path. */
export function privacyMatcher(globs: readonly string[]): PathMatcher {
  const matchers = globs.map((g) => compileGlob(g) ?? (() => true));
  return (path) => matchers.some((m) => m(path));
}
