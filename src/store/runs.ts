/**
 * Runs persisted (interface.md, Run lifecycle): the row, how to read it, and the
 * transitions made by the instance holding a run's turn. Admission (who may
 * start or continue a turn) is in run_admission.ts.
 *
 * Fencing: every claim gives the run a fresh `current_turn`; each update by a
 * holder names the turn it holds and does nothing (answers false/null) once
 * another request has superseded it. A claim is a lease (`claim_expires`,
 * CLAIM_LEASE_MS) renewed while the turn streams, and the holder's instance
 * beats (store/instances.ts), so a crashed instance's claim lapses within
 * seconds and the next execute can start a new run.
 */
import type { Queryable } from "./db.ts";

export type RunState = "idle" | "running" | "awaiting_client" | "error";

/**
 * Lease of a claim: 30 s, renewed by the holder every RENEW_EVERY_MS while its
 * turn runs. A provider call may last minutes, so the lease must be renewed,
 * not sized to the call; 30 s survives a missed renewal or two and a GC pause.
 */
export const CLAIM_LEASE_MS = 30_000;
export const RENEW_EVERY_MS = 10_000;

/**
 * `pause` is what an awaiting run waits for (core/run_state.ts `Pause`), written
 * by the engine; the store reads one field of it: `kind` (`tool`, `approval`,
 * `decrypt`, `encrypt`), which claimForContinue matches.
 */
export interface RunRow {
  id: string;
  session_id: string;
  state: RunState;
  pause: Record<string, unknown> | null;
  run_input: Record<string, unknown>;
  current_turn: string | null;
  claimed_by: string | null;
  claim_expires: Date | null;
  supersede_seq: number;
  created_at: Date;
  updated_at: Date;
}

export const RUN_COLUMNS =
  "id, session_id, state, pause, run_input, current_turn, claimed_by, claim_expires, supersede_seq, created_at, updated_at";

export function leaseUntil(now: Date, leaseMs = CLAIM_LEASE_MS): Date {
  return new Date(now.getTime() + leaseMs);
}

/**
 * Whether a running run lost its turn at the timestamp parameter `now` (e.g.
 * `$2`): its lease ran out or its holder stopped beating (migration 005). A
 * select column named `lapsed`, judged inside the statement that reads the run.
 */
export const lapsedColumn = (now: string) => `switchyard_claim_lapsed(runs, ${now}) AS lapsed`;

export async function findRun(db: Queryable, runId: string): Promise<RunRow | null> {
  const rows = await db.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1`, [runId]);
  return rows[0] ?? null;
}

/** The session's run that is running or awaiting the client, if any. */
export async function findLiveRun(db: Queryable, sessionId: string): Promise<RunRow | null> {
  const rows = await db.query<RunRow>(
    `SELECT ${RUN_COLUMNS} FROM runs
     WHERE session_id = $1 AND state IN ('running', 'awaiting_client')`,
    [sessionId],
  );
  return rows[0] ?? null;
}

export interface TurnRef {
  runId: string;
  turnId: string;
  now: Date;
}

/**
 * running → awaiting_client: the pause (and, when given, the run input kept
 * for the next turn) is stored and the claim released. Null when superseded.
 */
export async function pauseRun(
  db: Queryable,
  t: TurnRef & { pause: Record<string, unknown>; runInput?: Record<string, unknown> },
): Promise<RunRow | null> {
  const rows = await db.query<RunRow>(
    `UPDATE runs
     SET state = 'awaiting_client', pause = $3::jsonb, run_input = coalesce($4::jsonb, run_input),
         claimed_by = NULL, claim_expires = NULL, updated_at = $5
     WHERE id = $1 AND current_turn = $2 AND state = 'running'
     RETURNING ${RUN_COLUMNS}`,
    [
      t.runId,
      t.turnId,
      JSON.stringify(t.pause),
      t.runInput === undefined ? null : JSON.stringify(t.runInput),
      t.now,
    ],
  );
  return rows[0] ?? null;
}

/**
 * Gives a claimed continuation back to the client unchanged: the pause was
 * kept by the claim, so a continuation with bad data can be answered again
 * (decisions.md §2). False when superseded meanwhile.
 */
export async function returnToClient(db: Queryable, t: TurnRef): Promise<boolean> {
  const rows = await db.query(
    `UPDATE runs SET state = 'awaiting_client', claimed_by = NULL, claim_expires = NULL, updated_at = $3
     WHERE id = $1 AND current_turn = $2 AND state = 'running' AND pause IS NOT NULL
     RETURNING id`,
    [t.runId, t.turnId, t.now],
  );
  return rows.length > 0;
}

/** Replaces the run input kept across pauses (e.g. after an inject joined texts). */
export async function saveRunInput(
  db: Queryable,
  t: TurnRef & { runInput: Record<string, unknown> },
): Promise<boolean> {
  const rows = await db.query(
    `UPDATE runs SET run_input = $3::jsonb, updated_at = $4
     WHERE id = $1 AND current_turn = $2 AND state = 'running' RETURNING id`,
    [t.runId, t.turnId, JSON.stringify(t.runInput), t.now],
  );
  return rows.length > 0;
}

/**
 * running → idle (completed, broken, rejected) or → error (a terminal
 * failure; the session stays usable, so error is as final as idle for the
 * row). Pause and claim are cleared. False when superseded.
 */
export async function finishRun(
  db: Queryable,
  t: TurnRef & { state: "idle" | "error" },
): Promise<boolean> {
  const rows = await db.query(
    `UPDATE runs SET state = $3, pause = NULL, claimed_by = NULL, claim_expires = NULL, updated_at = $4
     WHERE id = $1 AND current_turn = $2 AND state = 'running' RETURNING id`,
    [t.runId, t.turnId, t.state, t.now],
  );
  return rows.length > 0;
}

/**
 * error → idle once the turn's error was surfaced (decisions.md §2: "the run
 * goes to `error` and then `idle`"). False when the run is no longer this
 * turn's or not in error.
 */
export async function recoverRun(db: Queryable, t: TurnRef): Promise<boolean> {
  const rows = await db.query(
    `UPDATE runs SET state = 'idle', updated_at = $3
     WHERE id = $1 AND current_turn = $2 AND state = 'error' RETURNING id`,
    [t.runId, t.turnId, t.now],
  );
  return rows.length > 0;
}

/**
 * Why run `runId` of session `sessionId` is not there, or null when it is.
 * `claim lost`: its session is. A claim commits without waiting for its WAL
 * on PostgreSQL (run_admission.ts `claimStatement`), so a crash of the server
 * can lose it while its turn runs on; the turn's end then finds no run to
 * move, which is no supersede. `session deleted`: the user deleted the
 * session, which takes its runs with it.
 */
export async function runMissing(
  db: Queryable,
  t: { runId: string; sessionId: string },
): Promise<"claim lost" | "session deleted" | null> {
  const rows = await db.query<{ run: boolean; session: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM runs WHERE id = $1) AS run,
            EXISTS (SELECT 1 FROM sessions WHERE id = $2) AS session`,
    [t.runId, t.sessionId],
  );
  const { run, session } = rows[0];
  return run ? null : session ? "claim lost" : "session deleted";
}

/** Whether session `sessionId` is gone: deleted (a turn's writes then fail, as a key would). */
export async function sessionGone(db: Queryable, sessionId: string): Promise<boolean> {
  const rows = await db.query<{ gone: boolean }>(
    "SELECT NOT EXISTS (SELECT 1 FROM sessions WHERE id = $1) AS gone",
    [sessionId],
  );
  return rows[0].gone;
}

/**
 * The runs `$1` (uuid[]) held by the turns `$2` (uuid[], pairwise) whose
 * state is among `states`, locked in their sessions' order: the order a claim
 * batch locks runs in (migrations/functions/claims.sql). Locked in any other
 * order, a statement over several runs and a claim batch over the same
 * sessions could each hold a run the other waits for, and PostgreSQL breaks
 * such a deadlock only after `deadlock_timeout` (a second by default): after a
 * database restart, every session waiting on those runs waited that second.
 */
export const heldRunsInOrder = (states: string) =>
  `SELECT runs.id FROM runs
   JOIN unnest($1::uuid[], $2::uuid[]) AS held (run_id, turn_id)
     ON runs.id = held.run_id AND runs.current_turn = held.turn_id
   WHERE runs.state IN (${states})
   ORDER BY runs.session_id, runs.id
   FOR UPDATE OF runs`;

/**
 * Ends turns that are over on their instance but whose own end was not
 * written (the store refused it): each run still held by its turn (running,
 * or in error) goes idle, its claim released; a run another request took
 * over, or that the turn did end, is left as it is. Returns the runs ended.
 */
export async function endLostTurns(
  db: Queryable,
  lost: readonly { runId: string; turnId: string }[],
  now: Date,
): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `WITH lost AS (${heldRunsInOrder("'running', 'error'")})
     UPDATE runs SET state = 'idle', pause = NULL, claimed_by = NULL, claim_expires = NULL,
                     updated_at = $3
     FROM lost WHERE runs.id = lost.id
     RETURNING runs.id`,
    [lost.map((l) => l.runId), lost.map((l) => l.turnId), now],
  );
  return rows.map((r) => r.id);
}
