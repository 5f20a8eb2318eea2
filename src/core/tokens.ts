/**
 * The token estimate (decisions.md §6): ceil(Unicode code points / 4) of an
 * item's content, no framing counted. Counting code points, not UTF-16 units,
 * keeps it identical under every runtime and for every script.
 */
import { codePointLength } from "./words.ts";

export function estimateTokens(content: string): number {
  return Math.ceil(codePointLength(content) / 4);
}
