/**
 * The run driver: carries one prompt to its end, answering every pause the
 * way the caller's callbacks decide — tools through `onToolCall`, `ask` calls
 * and approvals through `onApproval`, and, for an encrypted session, the
 * sealing and opening of decisions.md §8 — while `break` and `inject` may cut
 * in at any moment.
 */
import { SwitchyardError } from "./errors.ts";
import { answerFor, type RunCallbacks } from "./run_answers.ts";
import { seal, type SessionKey } from "./session_key.ts";
import type { CompletedData, ContinueRequest, TurnMessage, TurnResponse } from "./types.ts";

export interface RunResult {
  /** `completed` when the model answered; `idle` when the run was broken off or declined. */
  status: "completed" | "idle";
  /** The last answer of the model, when there was one. */
  message?: TurnMessage;
  /** The payload of the last completed turn (routing, usage, trace id). */
  completed?: CompletedData;
  /** True when `break` ended the run. */
  interrupted: boolean;
}

export interface Run extends PromiseLike<RunResult> {
  readonly result: Promise<RunResult>;
  /** Stops the run: the turn in flight is cut, its partial kept; resolves when the run is idle. */
  break(): Promise<void>;
  /** Cuts the turn in flight and goes on with `text` joined to the prompt. */
  inject(text: string): Promise<void>;
}

/** How one request of a run is sent. */
export interface StepHooks {
  /** To call once the service answered the request's headers (or it failed). */
  accepted: () => void;
  /** False once break/inject superseded the request: its events are no longer reported. */
  live: () => boolean;
}

export interface RunDeps {
  /** The execute request. */
  start: (hooks: StepHooks) => Promise<TurnResponse>;
  /** One continue request, in the run's mode (buffered or streamed). */
  step: (message: ContinueRequest, hooks: StepHooks) => Promise<TurnResponse>;
  key?: SessionKey;
  callbacks: RunCallbacks;
}

type Outcome = { response: TurnResponse } | { error: unknown };

const IDLE: TurnResponse = { status: "idle", data: {}, allowed_continuations: [] };

export function driveRun(deps: RunDeps): Run {
  let finished = false;
  let interrupted = false;
  let interrupt: Promise<Outcome | { ended: true }> | undefined;
  /** Bumped by every break/inject, so an answer prepared before it is never sent. */
  let generation = 0;
  let wake = () => {};
  // The request in flight: a break/inject waits until the service has it, then supersedes it.
  // The cut request is read to its end (the service ends it at once), its events unreported.
  let inFlight = { accepted: Promise.resolve(), cut: false };

  const settle = (p: Promise<TurnResponse>): Promise<Outcome> =>
    p.then((response) => ({ response }), (error) => ({ error }));

  function send(request: (hooks: StepHooks) => Promise<TurnResponse>): Promise<Outcome> {
    let accepted = () => {};
    const entry = { accepted: new Promise<void>((resolve) => (accepted = resolve)), cut: false };
    inFlight = entry;
    return settle(request({ accepted, live: () => !entry.cut }));
  }

  async function loop(): Promise<RunResult> {
    let pending = send(deps.start);
    let last: CompletedData | undefined;
    for (;;) {
      const woken = new Promise<"interrupt">((resolve) => (wake = () => resolve("interrupt")));
      let outcome = await Promise.race([pending, woken]);
      // Once break/inject was sent, its answer is the run's state, whatever the cut turn said.
      while (interrupt !== undefined) {
        const sent = interrupt;
        interrupt = undefined;
        const cut = await sent;
        // A break that found the run already over leaves the outcome that ended it.
        if (!("ended" in cut)) outcome = cut;
      }
      if (outcome === "interrupt") continue;
      if ("error" in outcome) throw outcome.error;
      const response = outcome.response;
      if (response.status === "completed") last = response.data;
      if (response.status === "error") {
        const error = response.data.error;
        throw new SwitchyardError(
          (error?.code ?? "internal_error") as SwitchyardError["code"],
          error?.message ?? "the run failed",
        );
      }
      if (response.allowed_continuations.length === 0) {
        return {
          status: last !== undefined && !interrupted ? "completed" : "idle",
          message: last?.message,
          completed: last,
          interrupted,
        };
      }
      const prepared = generation;
      pending = (async (): Promise<Outcome> => {
        const answer = await answerFor(response, deps.key, deps.callbacks);
        if (prepared !== generation) return { response: IDLE }; // superseded meanwhile: never read
        return await send((hooks) => deps.step(answer, hooks));
      })().catch((error) => ({ error }));
    }
  }

  async function cutIn(message: ContinueRequest): Promise<void> {
    if (finished) return;
    generation++;
    const cut = inFlight;
    cut.cut = true;
    const sent = (async (): Promise<Outcome | { ended: true }> => {
      await cut.accepted;
      const outcome = await send((hooks) => deps.step(message, hooks));
      const ended = "error" in outcome && outcome.error instanceof SwitchyardError &&
        outcome.error.code === "no_active_run";
      return ended ? { ended: true } : outcome;
    })();
    interrupt = sent;
    wake();
    await sent;
  }

  const result = loop().finally(() => (finished = true));
  return {
    result,
    then: (onFulfilled, onRejected) => result.then(onFulfilled, onRejected),
    break() {
      interrupted = true;
      return cutIn({ type: "break" });
    },
    async inject(text) {
      const ciphertext = deps.key ? await seal(deps.key, text) : undefined;
      await cutIn({
        type: "inject",
        data: { messages: [{ text, ...(ciphertext ? { ciphertext } : {}) }] },
      });
    },
  };
}
