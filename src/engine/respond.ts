/**
 * Runs a claimed turn and answers it: buffered, the envelope as JSON (a
 * failure as the HTTP error, decisions.md §2); streamed, server-sent events
 * ending with exactly one `turn_end`. A failure before the stream started is
 * still a plain JSON error. The turn runs to its end whether or not the
 * client stays connected.
 */
import { type Failure, failure, isStorageError, ServiceError } from "../core/errors.ts";
import { recoverRun, runMissing, sessionGone } from "../store/runs.ts";
import { settleCalls } from "../store/budgets.ts";
import { hasRecords, noRecords } from "../store/turn_writes.ts";
import type { EngineDeps, TurnLive, TurnResult } from "./turn_context.ts";
import { type Handoff, sendHandoff } from "./partial_handoff.ts";
import { finishTurn, takeRecords } from "./turn_records.ts";
import {
  BUFFERED_SINK,
  KEEP_ALIVE_INTERVAL_MS,
  type StreamFraming,
  streamSink,
  type TurnSink,
} from "./turn_sink.ts";
import { entered, ENTRY } from "./entry_queue.ts";
import type { PhaseClock } from "../telemetry/phase_clock.ts";

/**
 * The API a turn was asked through: how its answer is written. The engine
 * runs the same turn for every surface; only this differs.
 */
export interface TurnSurface {
  /** The response of a buffered turn that did not fail (a failure is thrown as a ServiceError). */
  answer(result: TurnResult, turnId: string): Response;
  /** A fresh framing for one streamed turn, and its closing bytes once the turn has a result. */
  framing(turnId: string): StreamFraming & { last(result: TurnResult, turnId: string): Uint8Array };
  /** The headers of a streamed answer. */
  streamHeaders(turnId: string): HeadersInit;
  /**
   * The stream's status is committed with its first content, not when the
   * first model call starts: a turn that fails before it (every candidate
   * failed, a refusal) answers with an HTTP error status (decisions.md §12).
   */
  readonly opensWithContent?: boolean;
  /**
   * What a turn cut by a supersede (a native `break` or `inject`) answers on
   * a surface without `idle` (the compatible APIs): an error, with its status
   * when the stream had sent no content yet. Absent: the surface answers the
   * cut itself (the native `idle`).
   */
  readonly interrupted?: Failure;
}

export interface ClaimedTurn {
  deps: EngineDeps;
  /** The session the run is of. */
  sessionId: string;
  runId: string;
  turnId: string;
  /** `supersede_seq` as the claim left it. */
  seq: number;
  stream: boolean;
  surface: TurnSurface;
  /** The request's phases: the turn's end is their last, and they are reported with it. */
  timing: PhaseClock;
  run(live: TurnLive): Promise<TurnResult>;
}

function outcomeOf(result: TurnResult): string {
  return result.kind === "envelope"
    ? result.envelope.status
    : result.kind === "answer"
    ? "completed"
    : result.kind === "failure"
    ? "failed"
    : "superseded";
}

const LOST_CLAIM = failure(
  "storage_error",
  "storage unavailable: the database restarted and lost this turn's claim before the turn " +
    "ended; nothing of it was kept as answered; try again",
);

/**
 * The user deleted the session while its turn ran (a delete is never
 * refused): the turn's request is answered as for any session not there,
 * never as an internal error, nor as a supersede nobody asked for.
 */
const SESSION_DELETED = failure(
  "session_not_found",
  "session not found: the session was deleted while this turn ran; nothing of the turn was kept",
);

/** Why a run the turn held is not there: a cut, or null (a supersede took it). */
async function missingRunCut(turn: ClaimedTurn): Promise<Failure | null> {
  const why = await runMissing(turn.deps.db, turn);
  return why === "claim lost" ? LOST_CLAIM : why === "session deleted" ? SESSION_DELETED : null;
}

/**
 * Answers the request that cut the turn, which set the next seq: with what an
 * encrypted turn held, or with nothing, so it stops waiting. Only a request
 * that asked for a hand-off opened a slot to receive it.
 */
async function handOver(turn: ClaimedTurn, handoff: Handoff | null): Promise<void> {
  const slot = { runId: turn.runId, seq: turn.seq + 1 };
  await sendHandoff(turn.deps.db, slot, handoff).catch((error) =>
    turn.deps.logger.warn("hand-off failed", { error: (error as Error)?.name })
  );
}

/**
 * Runs the turn under its guard. Records the turn gathered but did not write
 * with a transition (a turn cut by a supersede) are written on the way out;
 * an unexpected error ends the run in `error` with them.
 */
async function guarded(turn: ClaimedTurn, sink: TurnSink): Promise<TurnResult> {
  const { deps } = turn;
  const guard = deps.watcher.guard({ runId: turn.runId, turnId: turn.turnId, seq: turn.seq });
  const probe = deps.telemetry.turn(turn.turnId, turn.stream);
  const live = { sink, signal: guard.signal, seq: turn.seq, records: noRecords(), probe };
  try {
    const result = await turn.run(live);
    if (hasRecords(live.records)) await deps.turns.write(null, takeRecords(live));
    // Cut by its own instance (shutdown): nobody waits for a hand-off; the turn ends in error.
    // A run that is not there was not superseded: the database lost its claim in a crash, so
    // nothing of the turn stands as answered (storage_error), where `idle` would hide that; or
    // the session was deleted.
    const cutBy = result.kind !== "superseded" ? null : guard.cut ?? await missingRunCut(turn);
    if (cutBy !== null) {
      const cut = { kind: "failure" as const, failure: cutBy };
      probe.end(outcomeOf(cut));
      return cut;
    }
    probe.end(outcomeOf(result));
    if (result.kind === "superseded") await handOver(turn, result.handoff ?? null);
    return result;
  } catch (error) {
    // A session deleted under its turn fails the turn's writes, as a key would: the user's doing,
    // not a fault. Nothing of the turn can be kept, but its calls' costs count for the budget.
    if (await sessionGone(deps.db, turn.sessionId).catch(() => false)) {
      const pending = takeRecords(live).settlements ?? [];
      await settleCalls(deps.db, pending).catch(() =>
        deps.logger.warn("settling a deleted session's calls failed", { calls: pending.length })
      );
      probe.end("failed");
      await handOver(turn, null);
      return { kind: "failure", failure: SESSION_DELETED };
    }
    deps.logger.error("turn failed", {
      error: error instanceof Error ? error.name : typeof error,
      code: (error as { code?: unknown })?.code,
    });
    const lost = { runId: turn.runId, turnId: turn.turnId };
    const ending = finishTurn({ deps, ...lost, records: live.records }, "error");
    if (isStorageError(error)) {
      // The store is away (down, restarting, full): the request is answered now rather
      // than when it is back, the client's next turn is not held up by this one (the
      // instance ends its run as soon as the store takes writes, lost_turns.ts), and the
      // turn's records and the hand-off still go in when they can.
      deps.lost.add(lost);
      void ending.catch(() => {});
      void handOver(turn, null);
    } else {
      // A turn the store would not let end is ended once it takes writes.
      await ending.catch(() => deps.lost.add(lost));
      // A request that cut the turn as it failed need not wait out its timeout.
      await handOver(turn, null);
    }
    probe.end("failed");
    // An expected failure (storage_error when the database went away) keeps its code.
    const failed: Failure = error instanceof ServiceError
      ? error.failure
      : failure("internal_error", "internal error");
    return { kind: "failure", failure: failed };
  } finally {
    turn.timing.lap("write");
    probe.phases(turn.timing, deps.db.driver);
    guard.stop();
  }
}

/** The failure is being surfaced: the run leaves `error` for `idle`. */
async function recover(turn: ClaimedTurn): Promise<void> {
  const { deps } = turn;
  // A turn the store refused is ended by the instance once the store takes writes.
  if (deps.lost.has(turn.turnId)) return;
  await recoverRun(deps.db, { runId: turn.runId, turnId: turn.turnId, now: deps.now() })
    .catch(() => deps.lost.add({ runId: turn.runId, turnId: turn.turnId }));
}

export async function respondWithTurn(turn: ClaimedTurn): Promise<Response> {
  // The decision and the provider's request wait for their round, as the entry and the claim did.
  await entered(turn.timing);
  if (!turn.stream) {
    const result = await guarded(turn, BUFFERED_SINK);
    if (result.kind === "failure") {
      await recover(turn);
      throw new ServiceError(result.failure);
    }
    return turn.surface.answer(result, turn.turnId);
  }
  const closedInTelemetry = turn.deps.telemetry.streamOpened();
  const closedInQueue = ENTRY.streamOpened();
  const framing = turn.surface.framing(turn.turnId);
  const sink = streamSink(framing, KEEP_ALIVE_INTERVAL_MS, () => {
    closedInTelemetry();
    closedInQueue();
  });
  let settled: TurnResult | null = null;
  const done = guarded(turn, sink).then((result) => settled = result);
  await Promise.race([turn.surface.opensWithContent ? sink.firstFrame : sink.started, done]);
  const before = settled as TurnResult | null;
  if (before !== null && !sink.delivered && before.kind === "failure") {
    // The stream is not sent: closing it stops its keep-alives (and counts it closed once).
    sink.end(new Uint8Array(0));
    await recover(turn);
    throw new ServiceError(before.failure);
  }
  if (before?.kind === "superseded" && !sink.delivered && turn.surface.interrupted) {
    // Cut before its first content: an error with its status, as a failure is (decisions.md §12).
    sink.end(new Uint8Array(0));
    throw new ServiceError(turn.surface.interrupted);
  }
  done.then(async (result) => {
    sink.end(framing.last(result, turn.turnId));
    if (result.kind === "failure") await recover(turn);
  });
  return new Response(sink.body, { status: 200, headers: turn.surface.streamHeaders(turn.turnId) });
}
