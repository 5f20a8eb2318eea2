/**
 * In an encrypted session a superseded turn cannot store its partial reply
 * (nothing readable is written, decisions.md §8), so it hands the partial,
 * and the run input it held in memory, to the `break` or `inject` that
 * superseded it, which seals the partial through `awaiting_encrypt`. The
 * hand-off is in this instance's memory only: a turn streamed by another
 * instance leaves its partial unsealed (the message row keeps no content).
 */
import type { RunInput } from "./run_input.ts";

export interface Handoff {
  /** The interrupted reply's message reference and text; null when nothing was generated. */
  partial: { ref: string; text: string } | null;
  input: RunInput;
  /** What the client had opened for the superseded turn. */
  plain: Record<string, string>;
}

export interface HandoffBoard {
  offer(runId: string, handoff: Handoff): void;
  /** The superseded turn's hand-off, waiting up to `timeoutMs` for it; null when none came. */
  take(runId: string, timeoutMs: number): Promise<Handoff | null>;
}

/** An offer nobody takes is dropped after this long, so plaintext does not linger. */
const KEEP_MS = 5_000;

export function handoffBoard(): HandoffBoard {
  const offers = new Map<string, Handoff>();
  const waiters = new Map<string, (h: Handoff) => void>();
  return {
    offer(runId, handoff) {
      const waiter = waiters.get(runId);
      if (waiter !== undefined) {
        waiters.delete(runId);
        return waiter(handoff);
      }
      offers.set(runId, handoff);
      setTimeout(() => {
        if (offers.get(runId) === handoff) offers.delete(runId);
      }, KEEP_MS);
    },
    take(runId, timeoutMs) {
      const ready = offers.get(runId);
      if (ready !== undefined) {
        offers.delete(runId);
        return Promise.resolve(ready);
      }
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiters.delete(runId);
          resolve(null);
        }, timeoutMs);
        waiters.set(runId, (h) => {
          clearTimeout(timer);
          resolve(h);
        });
      });
    },
  };
}
