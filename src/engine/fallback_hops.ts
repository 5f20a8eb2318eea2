/**
 * The candidates a turn tried before the one that answered (decisions.md §7):
 * a single candidate's own error is answered as it is; several that all
 * failed are `fallback_exhausted`, with each hop in `details`.
 */
import { type Failure, failure } from "../core/errors.ts";

export interface Hop {
  provider: string;
  model: string;
  code: string;
  reason: string;
}

export function exhausted(hops: readonly Hop[], first: Failure): Failure {
  if (hops.length === 1) return first;
  return failure(
    "fallback_exhausted",
    `fallback exhausted: ${hops.length} candidates were tried and each failed`,
    { hops: hops.map((h) => ({ ...h })) },
  );
}
