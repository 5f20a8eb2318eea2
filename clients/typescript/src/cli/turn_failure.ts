/**
 * A streamed turn that fails after its stream started ends with a `turn_end`
 * carrying only a code and a message (the interface keeps details out of turn
 * data). The session's trace still records every model the turn tried and why
 * each call failed, so the CLI reads it back to say which fallbacks were taken.
 */
import type { SwitchyardClient } from "../client.ts";
import { fallbacksTaken, replayTurns } from "../decision.ts";
import { SwitchyardError } from "../errors.ts";
import type { SessionKey } from "../session_key.ts";
import { openTrace, readTrace } from "./trace_events.ts";

/** `error` with `details.fallbacks` from the trace when it had no details; else `error` itself. */
export async function explainFailure(
  client: SwitchyardClient,
  sessionId: string,
  error: unknown,
  key?: SessionKey,
): Promise<unknown> {
  // Status 0 and no details: the error came from a turn_end, not an HTTP answer.
  if (!(error instanceof SwitchyardError) || error.status !== 0 || error.details !== undefined) {
    return error;
  }
  try {
    const events = await openTrace(await readTrace(client, sessionId), key);
    const turn = replayTurns(events).filter((t) => t.choices.length > 0).at(-1);
    const fallbacks = turn === undefined ? [] : fallbacksTaken(turn);
    if (fallbacks.length === 0) return error;
    return new SwitchyardError(error.code, error.message, 0, { fallbacks }, { cause: error });
  } catch {
    return error; // the explanation is a courtesy: the turn's own error is what counts
  }
}
