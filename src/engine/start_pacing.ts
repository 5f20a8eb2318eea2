/**
 * Paces the starts of streamed turns: at most `perRound` begin their work
 * (history, decision, the provider's request) in one round of the event loop;
 * the rest wait for the next rounds. A batch of claims answered together
 * would otherwise start hundreds of turns back to back, and every open
 * stream's frames would wait for all of them. A start that finds the round
 * not full goes on at once, so a lone turn waits for nothing.
 */
export interface StartPacing {
  /** Resolves when the caller may start; null when it may start now. */
  enter(): Promise<void> | null;
}

export function startPacing(perRound: number): StartPacing {
  let started = 0;
  let round: ReturnType<typeof setTimeout> | null = null;
  const waiting: (() => void)[] = [];
  // A timer fires in the loop's next round, after the I/O that arrived meanwhile was handled.
  const nextRound = () => {
    round = null;
    started = 0;
    while (started < perRound && waiting.length > 0) {
      started++;
      waiting.shift()!();
    }
    if (started > 0) round = setTimeout(nextRound, 0);
  };
  return {
    enter() {
      if (round === null) round = setTimeout(nextRound, 0);
      if (started < perRound && waiting.length === 0) {
        started++;
        return null;
      }
      return new Promise<void>((resolve) => waiting.push(resolve));
    },
  };
}
