/**
 * Where one request's time went, phase by phase, up to its answer's first
 * byte and on to the turn's end: each `lap` gives the time since the last lap
 * to the phase it names, so the phases add up to the request's time in the
 * service, leaving out nothing between them. The answer carries them as a
 * `Server-Timing` header (what had passed when its headers were written); a
 * turn's phases are a histogram too (telemetry.ts). One clock per request:
 * one `performance.now()` and one addition per lap, no allocation.
 */

/** The phases in the order a turn meets them; a phase met twice (a tool loop) adds up. */
export const PHASES = [
  /** Route, rate limits, the credential's look-up (a native turn reads its session with it). */
  "auth",
  /** The body read, parsed and validated, the surface's request translated. */
  "parse",
  /** The session found or created (compatible surfaces) or its history read (continue). */
  "session",
  /** The provider catalog for the request's credentials (cached listings). */
  "catalog",
  /** The run claimed: one statement storing the prompt and reading history and memory. */
  "claim",
  /** Waiting for the event loop's time for starts under a burst (engine/entry_queue.ts). */
  "queue",
  /** Classification, routing, context selection, the approvals a call needs. */
  "decision",
  /** The budget's admission of the model call (a round trip only for a user with a budget). */
  "budget",
  /** The provider's request built and sent. */
  "request",
  /** From sending to the provider's response headers. */
  "provider_connect",
  /** From its headers to its first event (a buffered answer: its whole body). */
  "provider_first_byte",
  /** The rest of the provider's answer. */
  "provider_rest",
  /** The turn's records written, its end committed. */
  "write",
  /**
   * From the last phase to the answer's headers: a turn's answer built (a
   * buffered turn's envelope serialized), the request's log line and metrics;
   * for a request that is no turn, its endpoint's work after authentication
   * as well. In the header only: a turn's histogram is observed as the turn
   * ends, before this.
   */
  "answer",
] as const;

export type Phase = typeof PHASES[number];

const INDEX = Object.fromEntries(PHASES.map((p, i) => [p, i])) as Record<
  Phase,
  number
>;

export interface PhaseClock {
  /** The time since the last lap (or the start) goes to `phase`. */
  lap(phase: Phase): void;
  /** Laps `answer` if the request met a phase (one that met none answers without the header). */
  answered(): void;
  /** The phases met so far as a `Server-Timing` value (milliseconds); null: none. */
  header(): string | null;
  /** Each phase met so far with its time in seconds, in the order of PHASES. */
  forEach(fn: (phase: Phase, seconds: number) => void): void;
}

class RequestPhases implements PhaseClock {
  #last: number;
  readonly #spent = new Float64Array(PHASES.length);
  #met = 0;

  constructor(start: number) {
    this.#last = start;
  }

  lap(phase: Phase): void {
    const now = performance.now();
    const i = INDEX[phase];
    this.#spent[i] += now - this.#last;
    this.#met |= 1 << i;
    this.#last = now;
  }

  answered(): void {
    if (this.#met !== 0) this.lap("answer");
  }

  header(): string | null {
    if (this.#met === 0) return null;
    let out = "";
    for (let i = 0; i < PHASES.length; i++) {
      if ((this.#met & (1 << i)) === 0) continue;
      out += `${out === "" ? "" : ", "}${PHASES[i]};dur=${this.#spent[i].toFixed(2)}`;
    }
    return out;
  }

  forEach(fn: (phase: Phase, seconds: number) => void): void {
    for (let i = 0; i < PHASES.length; i++) {
      if ((this.#met & (1 << i)) !== 0) fn(PHASES[i], this.#spent[i] / 1000);
    }
  }
}

/** A clock whose first lap counts from `start` (a `performance.now()` reading). */
export function phaseClock(start = performance.now()): PhaseClock {
  return new RequestPhases(start);
}

/** Keeps nothing: for work that no request waits on. */
export const NO_PHASES: PhaseClock = {
  lap() {},
  answered() {},
  header: () => null,
  forEach() {},
};
