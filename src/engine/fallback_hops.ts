/**
 * The candidates a turn tried before the one that answers (decisions.md §7):
 * a provider failure of a kind that allows it, before any output reached the
 * client, moves to the next candidate; a single candidate's own error is
 * answered as it is; several that all failed are `fallback_exhausted`, with
 * each hop in `details`. One per turn, kept across its model calls.
 */
import { type Failure, failure } from "../core/errors.ts";
import type { ModelDescriptor } from "../core/model.ts";
import { allowsFallback, type ProviderError } from "../providers/errors.ts";

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

export interface Fallbacks {
  /** The catalog without the candidates that failed. */
  usable(catalog: readonly ModelDescriptor[]): ModelDescriptor[];
  /** What to answer when routing finds no candidate: its own failure, or the hops so far. */
  noCandidate(routingFailure: Failure): Failure;
  /**
   * A candidate's provider error: the hop to record before trying the next
   * one, or the failure to answer when it may not move on.
   */
  failed(
    model: Pick<ModelDescriptor, "provider" | "model">,
    error: ProviderError,
    delivered: boolean,
  ): { hop: Hop } | { failure: Failure };
}

export function fallbacks(): Fallbacks {
  const hops: Hop[] = [];
  let first: Failure | null = null;
  const gone = new Set<string>();
  return {
    usable: (catalog) => catalog.filter((m) => !gone.has(`${m.provider}/${m.model}`)),
    noCandidate: (routingFailure) => first === null ? routingFailure : exhausted(hops, first),
    failed({ provider, model }, error, delivered) {
      const own = failure(error.code, error.message, { provider, model });
      const hop = { provider, model, code: error.code, reason: error.message };
      if (!allowsFallback(error.category) || delivered) {
        return { failure: hops.length === 0 ? own : exhausted([...hops, hop], first ?? own) };
      }
      hops.push(hop);
      first ??= own;
      gone.add(`${provider}/${model}`);
      return { hop };
    },
  };
}
