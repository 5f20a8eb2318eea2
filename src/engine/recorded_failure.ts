import { type Failure, ServiceError } from "../core/errors.ts";

/**
 * The failure of a turn that was recorded (a refusal, every candidate
 * failed): its answer still names the session and the trace that hold it
 * (decisions.md §12, "Every answer").
 */
export class RecordedTurnFailure extends ServiceError {
  constructor(failure: Failure, readonly sessionId: string, readonly traceId: string) {
    super(failure);
  }

  /** The headers every answer of a recorded turn carries. */
  get headers(): Record<string, string> {
    return { "x-router-session-id": this.sessionId, "x-router-trace-id": this.traceId };
  }
}
