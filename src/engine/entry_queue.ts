/**
 * Frames first: the work that starts requests (authentication, the body's
 * parsing, the claim, the decision) takes at most `budgetMs` of one round of
 * the event loop; once a round has spent it, later entries wait for the next
 * round, after the I/O that arrived meanwhile, which is where running
 * streams' frames come in. A burst of 500 starts would otherwise run back to
 * back, every open stream's frames waiting behind all of them.
 *
 * A round begins with its first entry and ends when a timer fires. Waiting
 * entries go on only after the loop read the I/O that came while they waited,
 * one at a time, each after the one before has run up to its next wait, while the
 * round's budget lasts. While fewer than two requests are being started
 * (`begin` to `end`) nobody waits: a lone request's own work and its store's
 * round trips are no burst. Nor while no stream is open: there is no frame to
 * put first, and the waits' timers would only slow buffered turns (measured:
 * 6–10 % fewer turns a second at 32 clients on PostgreSQL).
 */
import type { PhaseClock } from "../telemetry/phase_clock.ts";

export interface EntryQueue {
  /** Null: go on now; else a promise that resolves when the entry may go on. */
  enter(): Promise<void> | null;
  /** A request is being started (until its answer's headers); call `end` once after. */
  begin(): void;
  end(): void;
  /** A stream's response is open, until the returned function is called (once). */
  streamOpened(): () => void;
}

/**
 * Calls `then` once the event loop has read the I/O that arrived before this
 * call, whatever the process's load: two timers (the second set by the first),
 * then two immediates (likewise). Deno runs a loop round's timers before the
 * sockets it read that round, and fires a timer only after asking the OS for
 * I/O, so the second timer comes after that I/O was read. Bun runs the
 * immediates set in one round at the start of the next, before asking the OS,
 * so the second immediate comes after a round's I/O was read. Neither alone
 * holds on both runtimes under load (measured: immediates only on Deno, timers
 * only on Bun let starts in ahead of waiting bytes).
 */
export function afterIoRead(then: () => void): void {
  setTimeout(() => setTimeout(() => setImmediate(() => setImmediate(then)), 0), 0);
}

export function entryQueue(budgetMs: number): EntryQueue {
  let roundStart = 0;
  let roundOpen = false;
  let roundEnd: ReturnType<typeof setTimeout> | null = null;
  let letInSet = false;
  const waiting: (() => void)[] = [];
  let starting = 0;
  let streams = 0;
  const overBudget = () => performance.now() - roundStart >= budgetMs;
  const openRound = () => {
    if (roundOpen) return;
    roundOpen = true;
    roundStart = performance.now();
    roundEnd ??= setTimeout(() => {
      roundEnd = null;
      roundOpen = false;
    }, 0);
  };
  // Set once the round's work is done, so the loop reads the I/O that came meanwhile first.
  const later = () => {
    if (letInSet) return;
    letInSet = true;
    afterIoRead(() => {
      letInSet = false;
      letIn();
    });
  };
  // Runs as a microtask after the entry let in before it went as far as its next wait.
  const letIn = () => {
    if (waiting.length === 0) return;
    openRound();
    if (overBudget()) return later();
    waiting.shift()!();
    queueMicrotask(letIn);
  };
  return {
    enter() {
      if ((starting < 2 || streams === 0) && waiting.length === 0) return null;
      openRound();
      if (waiting.length === 0 && !overBudget()) return null;
      const wait = new Promise<void>((resolve) => waiting.push(resolve));
      later();
      return wait;
    },
    begin() {
      starting++;
    },
    end() {
      starting--;
    },
    streamOpened() {
      streams++;
      let open = true;
      return () => {
        if (open) streams--;
        open = false;
      };
    },
  };
}

/**
 * The process's queue: 4 ms of starts per round, so that under a burst a
 * running stream's frame waits a few milliseconds for starts, not the burst.
 */
export const ENTRY = entryQueue(4);

/** Waits for the process's queue when it must; a wait is the request's `queue` phase. */
export async function entered(timing: PhaseClock): Promise<void> {
  const wait = ENTRY.enter();
  if (wait === null) return;
  await wait;
  timing.lap("queue");
}
