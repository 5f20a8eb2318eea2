/**
 * Admission of execute and continue against the run's current state
 * (decisions.md §2, §7): one run in flight; `break` and `inject` supersede a
 * running turn; execute supersedes a waiting run; a continuation must answer
 * the current pause. Refusals are values and change nothing, so the
 * checkpoint is kept and the client can answer again.
 *
 * The store claims a run with one atomic statement; `claimableFrom` gives the
 * states (and pause kinds) that statement may claim from. When the claim
 * finds none, the store re-reads the run and `admit` names the refusal.
 */
import { type ContinuationKind, pauseContinuations } from "./continuation.ts";
import { fail, ok, type Outcome } from "./errors.ts";
import { PAUSE_KINDS, type PauseKind, type RunSnapshot, type RunState } from "./run_state.ts";

export type RequestKind = "execute" | ContinuationKind;

export interface Admission {
  /** `superseding`: the request cancels what the run was doing. */
  verdict: "accepted" | "superseding";
  /**
   * `in_flight_turn`: the provider call of a running turn (possibly on another
   * instance: signal it through the database); `pending_pause`: the pause's
   * outstanding client work (pending tool calls are cancelled).
   */
  cancels: "in_flight_turn" | "pending_pause" | null;
  /** Execute starts a new run; continuations go on with the current one. */
  new_run: boolean;
}

const SUPERSEDERS: readonly RequestKind[] = ["break", "inject"];

function runInFlight(): Outcome<never> {
  return fail("run_in_flight", "run in flight: a turn of this session is already running");
}

export function admit(kind: RequestKind, run: RunSnapshot): Outcome<Admission> {
  if (run.state === "awaiting_client" && run.pause === null) {
    throw new Error("a waiting run has no pause");
  }
  return admitFrom(kind, run.state, run.pause?.kind ?? null);
}

function admitFrom(
  kind: RequestKind,
  state: RunState,
  pause: PauseKind | null,
): Outcome<Admission> {
  const live = state === "running" || state === "awaiting_client";
  if (kind === "execute") {
    if (state === "running") return runInFlight();
    return ok(
      state === "awaiting_client"
        ? { verdict: "superseding", cancels: "pending_pause", new_run: true }
        : { verdict: "accepted", cancels: null, new_run: true },
    );
  }
  if (!live) {
    return fail("no_active_run", `no active run: nothing to continue with '${kind}'`, {
      type: kind,
    });
  }
  if (state === "running" || pause === null) {
    return SUPERSEDERS.includes(kind)
      ? ok({ verdict: "superseding", cancels: "in_flight_turn", new_run: false })
      : runInFlight();
  }
  const allowed = pauseContinuations(pause);
  if (!allowed.includes(kind)) {
    return fail(
      "continuation_mismatch",
      `continuation mismatch: '${kind}' does not answer the current pause; expected one of ${
        allowed.join(", ")
      }`,
      { type: kind, allowed_continuations: allowed },
    );
  }
  return ok(
    SUPERSEDERS.includes(kind)
      ? { verdict: "superseding", cancels: "pending_pause", new_run: false }
      : { verdict: "accepted", cancels: null, new_run: false },
  );
}

export interface ClaimCondition {
  state: RunState;
  /** For `awaiting_client`: the pause kinds it may be claimed from. */
  pause_kinds?: PauseKind[];
}

/** Every state a request of this kind is admitted from, for the store's atomic claim. */
export function claimableFrom(kind: RequestKind): ClaimCondition[] {
  const out: ClaimCondition[] = [];
  for (const state of ["idle", "running", "error"] as const) {
    if (admitFrom(kind, state, null).ok) out.push({ state });
  }
  const kinds = PAUSE_KINDS.filter((k) => admitFrom(kind, "awaiting_client", k).ok);
  if (kinds.length > 0) out.push({ state: "awaiting_client", pause_kinds: kinds });
  return out;
}
