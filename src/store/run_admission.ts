/**
 * Admission (decisions.md §7), done in the database so that it holds across
 * instances sharing one PostgreSQL. execute and break/inject first lock the
 * session row (FOR NO KEY UPDATE, which leaves foreign-key inserts of other
 * tables unblocked), so they are serialised per session; a continue claims
 * with one conditional UPDATE whose row lock serialises it against them. The
 * unique index `runs_one_live_per_session` is the last line of defence: its
 * violation reads as "in flight".
 *
 * Pass the store itself (not a caller's transaction): a lost race aborts the
 * transaction these functions open.
 */
import { ServiceError } from "../core/errors.ts";
import type { Db, Queryable } from "./db.ts";
import { retryOnConflict } from "./conflict_retry.ts";
import { type HandoffSlot, openHandoffSlot } from "./run_handoffs.ts";
import { lapsedColumn, leaseUntil, RUN_COLUMNS, type RunRow } from "./runs.ts";
import type { HistoryCache } from "./history_cache.ts";
import { RECALL_LIMIT } from "./memories.ts";
import { isStorageConflict } from "./storage_fault.ts";
import { type StoreLane, storeLane } from "./store_lane.ts";
import { notifySuperseded } from "./supersede_signal.ts";
import { type NewTraceEvent, traceRecord } from "./traces.ts";
import { inTransaction, isUniqueViolation } from "./transaction.ts";
import { recordsDocument, type TurnRecords } from "./turn_writes.ts";
import { UNSYNCED_COMMIT } from "./unsynced_commit.ts";

export interface ClaimRequest {
  sessionId: string;
  /** The new turn's id: the fence every later update by the holder names. */
  turnId: string;
  /** The claiming service instance, for diagnosis. */
  instance: string;
  now: Date;
  leaseMs?: number;
  /**
   * The session's user: the claim then also reads, in the same statement,
   * whether the user has a budget (migration 014), so a turn of a user without
   * one makes no round trip for it (engine/budget_gate.ts).
   */
  userId?: string;
}

/** A message of a session's history, with the run that wrote it. */
export interface HistoryItem {
  seq: number;
  run_id: string | null;
  role: string;
  content: Record<string, unknown>;
  constrained: boolean;
}

/**
 * What a turn reads to start (migrations 005 and 007): the session's history
 * (the claimed run's own prompt is left out in SQL; read only past what this
 * instance holds, history_cache.ts) and the recalled memory.
 */
export interface TurnReading {
  history: readonly HistoryItem[];
  memory: { id: string; session_id: string | null; key: string; value: Record<string, unknown> }[];
}

/** `switchyard_history`'s answer: [seq, role, content, constrained, id, run_id] of each message after `after`. */
export interface HistoryRead {
  after: number;
  rows: [number, string, Record<string, unknown>, boolean, string, string | null][];
}

/** The reading of session `session` (every message), in one statement. */
export async function readTurn(
  db: Queryable,
  session: { id: string; user_id: string; key_id: string | null },
  cache: HistoryCache,
): Promise<TurnReading> {
  const mark = cache.mark(session.id);
  const rows = await db.query<{ history: HistoryRead; memory: TurnReading["memory"] }>(
    `SELECT switchyard_history($1, NULL, $4, $5) AS history, switchyard_recall($2, $1, $3) AS memory`,
    [session.id, session.user_id, RECALL_LIMIT, mark.seq, mark.id],
  );
  return {
    history: cache.history(session.id, mark, rows[0].history, session.key_id === null),
    memory: rows[0].memory,
  };
}

export type ExecuteClaim =
  /** `superseded`: the run that was live before (as it was), now idle. */
  | {
    kind: "claimed";
    run: RunRow;
    superseded: RunRow | null;
    /** The `seq`s of `records.messages`. */
    messageSeqs: number[];
    /** Present when `read` was asked for. */
    reading?: TurnReading;
    /** Whether the user has a budget; present when `userId` was given. */
    budgeted?: boolean;
  }
  /** `run`: the running run, when the refusal came from reading it (not from the unique index). */
  | { kind: "in_flight"; run: RunRow | null }
  /** A claim with `auth` that did not hold: nothing was locked or written. */
  | { kind: "refused"; reason: ClaimRefusal };

/**
 * Why a claim with `auth` was refused: the token is unknown or not this
 * secret's, revoked (or its key or user), or expired; or the session is not
 * a live plaintext session of the token's user (`session`).
 */
export type ClaimRefusal =
  | "invalid_token"
  | "token_revoked"
  | "token_expired"
  | "session"
  /** A continue's claim took nothing: its one UPDATE does not tell the token, session or run apart. */
  | "unclaimed";

/**
 * The bearer token a turn presented, checked by its claim rather than read
 * before it (migrations/functions/claims.sql): its id, the SHA-256 digest of
 * its secret (never the secret) and the user this instance took it for.
 */
export interface ClaimAuth {
  tokenId: string;
  secretHash: string;
  userId: string;
}

export interface ExecuteClaimRequest extends ClaimRequest {
  runId: string;
  runInput?: Record<string, unknown>;
  /** Written once the run is claimed, in the same transaction (the prompt and its trace event). */
  records?: TurnRecords;
  /**
   * The trace event recorded for each pending tool call of a superseded run,
   * before `records`; its payload gets the call's `call_id` and `tool_name`.
   */
  cancelledCall?: NewTraceEvent;
  /**
   * Read the session's history past what `cache` holds, keeping it there (so
   * only for a plaintext session), and the user's and session's memory after
   * the claim.
   */
  read?: { userId: string; cache: HistoryCache };
  /**
   * The claim is the request's authentication too: it takes the session only
   * for this token of its owner, and only a live plaintext one (see
   * `ClaimRefusal`).
   */
  auth?: ClaimAuth;
}

/** `ClaimAuth` as switchyard_token_refusal reads it. */
const authJson = (a: ClaimAuth) => ({
  token_id: a.tokenId,
  secret_hash: a.secretHash,
  user_id: a.userId,
});

type RunJson = Omit<RunRow, "claim_expires" | "created_at" | "updated_at"> & {
  claim_expires: string | null;
  created_at: string;
  updated_at: string;
};

function runFromJson(r: RunJson): RunRow {
  return {
    ...r,
    claim_expires: r.claim_expires === null ? null : new Date(r.claim_expires),
    created_at: new Date(r.created_at),
    updated_at: new Date(r.updated_at),
  };
}

type ClaimAnswer = { kind: "refused"; reason: ClaimRefusal } | {
  kind: "claimed" | "in_flight";
  /** Claimed: without `run_input`. */
  run: RunJson;
  superseded: RunJson | null;
  message_seqs: number[];
  history: HistoryRead | null;
  memory: TurnReading["memory"] | null;
};

/** An execute claim as `switchyard_claim_execute` takes it, and how to read its answer. */
function claimRequest(c: ExecuteClaimRequest) {
  const read = c.read && { ...c.read, mark: c.read.cache.mark(c.sessionId) };
  const request = {
    session_id: c.sessionId,
    run_id: c.runId,
    turn_id: c.turnId,
    instance: c.instance,
    now: c.now.toISOString(),
    lease_until: leaseUntil(c.now, c.leaseMs).toISOString(),
    run_input: c.runInput ?? {},
    ...(c.records === undefined ? {} : { records: recordsDocument(c.records) }),
    ...(c.cancelledCall === undefined ? {} : { cancelled_call: traceRecord(c.cancelledCall) }),
    ...(read === undefined ? {} : {
      read: { user_id: read.userId, after_seq: read.mark.seq, after_id: read.mark.id },
      recall_limit: RECALL_LIMIT,
    }),
    ...(c.auth === undefined ? {} : {
      auth: authJson(c.auth),
    }),
  };
  const answered = (answer: ClaimAnswer | null, budgeted?: readonly string[]): ExecuteClaim => {
    // No answer: the unique index refused the run (the claim's last line of defence).
    if (answer === null) return { kind: "in_flight", run: null };
    if (answer.kind === "refused") return { kind: "refused", reason: answer.reason };
    if (answer.kind === "in_flight") return { kind: "in_flight", run: runFromJson(answer.run) };
    return {
      kind: "claimed",
      // The answer leaves out the run input it was sent.
      run: runFromJson({ ...answer.run, run_input: request.run_input }),
      ...(c.userId === undefined || budgeted === undefined
        ? {}
        : { budgeted: budgeted.includes(c.userId) }),
      superseded: answer.superseded === null ? null : runFromJson(answer.superseded),
      messageSeqs: answer.message_seqs,
      ...(answer.history === null || answer.memory === null || read === undefined ? {} : {
        reading: {
          history: read.cache.history(c.sessionId, read.mark, answer.history, true),
          memory: answer.memory,
        },
      }),
    };
  };
  return { text: JSON.stringify(request), userId: c.userId ?? null, answered };
}

/** A claim's answer and which of the claiming users have a budget (migration 014). */
interface Answered {
  answer: ClaimAnswer | null;
  budgeted: string[];
}

/** The expression that makes a claim's commit unsynced (unsynced_commit.ts), or null. */
function unsyncedCommit(db: Queryable): string | null {
  return (db as Partial<Db>).flushesUnsyncedCommits === true ? UNSYNCED_COMMIT : null;
}

/**
 * The claim's statement: `call` and, beside it, which of the claiming users
 * (`$2`: one uuid, or a uuid[] for a batch) have a budget, as json.
 */
function claimStatement(db: Queryable, call: string, users: "one" | "many"): string {
  const unsynced = unsyncedCommit(db);
  // One user is compared as a scalar: against an array PostgreSQL planned the
  // statement afresh on every call, finding no plan for any array as cheap as
  // one for the array at hand (a tenth of a millisecond of a claim alone).
  const among = users === "one" ? "= $2::uuid" : "= ANY($2::uuid[])";
  const budgeted =
    `SELECT coalesce(json_agg(user_id), '[]') FROM user_budgets WHERE user_id ${among}`;
  return `SELECT ${unsynced === null ? "" : `${unsynced}, `}${call} AS c, (${budgeted}) AS b`;
}

/**
 * One claim alone; a null answer when the unique index refused it. A deadlock
 * or serialization failure rolled the statement back: it goes again
 * (conflict_retry.ts).
 */
async function claimAlone(
  db: Queryable,
  text: string,
  userId: string | null,
): Promise<Answered> {
  try {
    const rows = await retryOnConflict(() =>
      db.query<{ c: ClaimAnswer; b: string[] }>(
        claimStatement(db, "switchyard_claim_execute($1::jsonb)", "one"),
        [text, userId],
      )
    );
    return { answer: rows[0].c, budgeted: rows[0].b };
  } catch (error) {
    if (isUniqueViolation(error)) return { answer: null, budgeted: [] };
    throw error;
  }
}

/**
 * Starts a new run in state running, unless a turn is running (in flight). A
 * run awaiting the client is superseded in the same transaction (it goes idle,
 * its pending data cleared, like a break); so does a running run whose claim
 * lapsed (lease run out or its instance stopped beating), its cut traced. One statement
 * (`switchyard_claim_execute`): the claim, the prompt's records and the
 * turn's reading travel in one round trip.
 */
export async function claimForExecute(
  db: Queryable,
  c: ExecuteClaimRequest,
): Promise<ExecuteClaim> {
  const { text, userId, answered } = claimRequest(c);
  const { answer, budgeted } = await claimAlone(db, text, userId);
  return answered(answer, budgeted);
}

/** An instance's execute claims, batched (`executeClaimer`). */
export interface ExecuteClaimer {
  claim(c: ExecuteClaimRequest): Promise<ExecuteClaim>;
}

interface PendingClaim {
  text: string;
  userId: string | null;
  resolve(answered: Answered): void;
  reject(error: unknown): void;
}

/** A batch of claims stops growing at this many. */
export const MAX_BATCH_CLAIMS = 64;

async function claimBatch(db: Queryable, batch: readonly PendingClaim[]): Promise<void> {
  if (batch.length === 1) {
    await claimAlone(db, batch[0].text, batch[0].userId).then(batch[0].resolve, batch[0].reject);
    return;
  }
  let answers: ClaimAnswer[];
  let budgeted: string[];
  try {
    const rows = await db.query<{ c: ClaimAnswer[]; b: string[] }>(
      claimStatement(db, "switchyard_claim_executes($1::jsonb)", "many"),
      [
        `[${batch.map((p) => p.text).join(",")}]`,
        batch.flatMap((p) => p.userId === null ? [] : [p.userId]),
      ],
    );
    answers = rows[0].c;
    budgeted = rows[0].b;
  } catch (error) {
    // As the turn writer does: an outage's outcome is unknown, so every claim gets it. A
    // deadlock or serialization failure rolled the batch back, and any other failure is one
    // claim's: each claim goes again alone, answered as alone.
    if (error instanceof ServiceError && !isStorageConflict(error)) {
      for (const p of batch) p.reject(error);
      return;
    }
    for (const p of batch) await claimAlone(db, p.text, p.userId).then(p.resolve, p.reject);
    return;
  }
  batch.forEach((p, k) => p.resolve({ answer: answers[k], budgeted }));
}

/**
 * Group commit for claims, as turn_writer.ts does for turn ends: a claim that
 * finds the previous one of this instance in flight waits for it, and every
 * claim that waited goes in the next transaction (`switchyard_claim_executes`,
 * migration 011), each answered as alone. A claim that finds none in flight
 * (and no turn-end batch in the lane it shares with the writer, store_lane.ts)
 * goes at once, alone: nothing waits for a timer. Claims of one session in one
 * batch are taken in the order they came, so the later finds the earlier's run
 * in flight, as it would have in two transactions. A batch that loses a
 * deadlock or serialization failure was rolled back whole: its claims go
 * again one by one, each alone retried a few times (conflict_retry.ts); a
 * batch cut by an outage is not, whether it committed being unknown.
 */
export function executeClaimer(db: Queryable, lane: StoreLane = storeLane()): ExecuteClaimer {
  const pending: PendingClaim[] = [];
  let busy = false;
  const run = async () => {
    busy = true;
    try {
      while (pending.length > 0) {
        // Taken when the lane is free: what came while a write batch was in flight goes too.
        await lane.run(() => claimBatch(db, pending.splice(0, MAX_BATCH_CLAIMS)));
      }
    } finally {
      busy = false;
    }
  };
  return {
    async claim(c) {
      const { text, userId, answered } = claimRequest(c);
      const { answer, budgeted } = await new Promise<Answered>((resolve, reject) => {
        pending.push({ text, userId, resolve, reject });
        if (!busy) void run();
      });
      return answered(answer, budgeted);
    },
  };
}

export type ContinueClaim =
  /**
   * `budgeted`: whether the user has a budget, present when `userId` was given;
   * `reading`: the session's history and recalled memory, when `read` was given.
   */
  | { kind: "claimed"; run: RunRow; budgeted?: boolean; reading?: TurnReading }
  | { kind: "no_active_run" }
  | { kind: "in_flight"; run: RunRow }
  /** The live run awaits something else: `continuation_mismatch`, its checkpoint untouched. */
  | { kind: "mismatch"; run: RunRow }
  /** With `auth`, nothing was claimed, and nothing is told before the request is authenticated. */
  | { kind: "refused"; reason: "unclaimed" };

/**
 * The condition a continue with `auth` (the parameter `p`) adds: the token
 * holds at `$6` and the session is a live plaintext session of its user, as
 * an execute's claim checks them (claims.sql). Both are read once, before any row.
 */
const continueAuth = (p: string) => `
       AND switchyard_token_refusal(${p}::jsonb, $6) IS NULL
       AND EXISTS (SELECT 1 FROM sessions s
                   WHERE s.id = $1 AND s.user_id = (${p}::jsonb ->> 'user_id')::uuid
                     AND NOT s.archived AND s.key_id IS NULL)`;

/**
 * Claims the run awaiting the client, in one UPDATE: of N parallel continues
 * exactly one matches. The pause stays on the row so the engine can check the
 * continuation against it and, if the data is bad, `returnToClient`. With
 * `pauseKinds` (core/run_admission.ts `claimableFrom`), the pause's `kind` must
 * be one of them. A running run whose claim lapsed is a lost turn:
 * no_active_run (an execute starts over). With `auth` the claim is also the
 * request's authentication (as an execute's is): a claim that takes nothing
 * is `refused`, and the caller authenticates as any other request does.
 */
export async function claimForContinue(
  db: Queryable,
  c: ClaimRequest & {
    pauseKinds?: readonly string[];
    auth?: ClaimAuth;
    /** As an execute's claim reads them (`ExecuteClaimRequest.read`): a plaintext session only. */
    read?: { userId: string; cache: HistoryCache };
  },
): Promise<ContinueClaim> {
  const params: unknown[] = [
    c.sessionId,
    c.pauseKinds === undefined ? null : JSON.stringify(c.pauseKinds),
    c.turnId,
    c.instance,
    leaseUntil(c.now, c.leaseMs),
    c.now,
    c.userId ?? null,
  ];
  const param = (value: unknown) => `$${params.push(value)}`;
  const authorized = c.auth === undefined
    ? ""
    : continueAuth(param(JSON.stringify(authJson(c.auth))));
  const read = c.read && { ...c.read, mark: c.read.cache.mark(c.sessionId) };
  const reading = read === undefined ? "" : `,
       switchyard_history($1, NULL, ${param(read.mark.seq)}, ${param(read.mark.id)}) AS history,
       switchyard_recall(${param(read.userId)}, $1, ${param(RECALL_LIMIT)}) AS memory`;
  const unsynced = unsyncedCommit(db);
  const claimed = await db.query<
    RunRow & {
      budgeted: boolean | null;
      history?: HistoryRead;
      memory?: TurnReading["memory"];
      unsynced_commit?: string;
    }
  >(
    `UPDATE runs
     SET state = 'running', current_turn = $3, claimed_by = $4, claim_expires = $5, updated_at = $6
     WHERE session_id = $1 AND state = 'awaiting_client'
       AND ($2::jsonb IS NULL OR pause ->> 'kind' IN (SELECT jsonb_array_elements_text($2::jsonb)))${authorized}
     RETURNING ${RUN_COLUMNS}, ${budgetedColumn("$7")}${reading}${
      unsynced === null ? "" : `, ${unsynced} AS unsynced_commit`
    }`,
    params,
  );
  if (claimed.length > 0) {
    const { budgeted, history, memory, unsynced_commit: _, ...run } = claimed[0];
    return {
      kind: "claimed",
      run,
      ...(budgeted === null ? {} : { budgeted }),
      ...(read === undefined || history === undefined || memory === undefined ? {} : {
        reading: { history: read.cache.history(c.sessionId, read.mark, history, true), memory },
      }),
    };
  }
  if (c.auth !== undefined) return { kind: "refused", reason: "unclaimed" };
  // Diagnosis only: the claim above was the atomic part.
  const live = await db.query<RunRow & { lapsed: boolean }>(
    `SELECT ${RUN_COLUMNS}, ${lapsedColumn("$2")} FROM runs
     WHERE session_id = $1 AND state IN ('running', 'awaiting_client')`,
    [c.sessionId, c.now],
  );
  const found = live[0];
  if (found === undefined || found.lapsed) return { kind: "no_active_run" };
  const { lapsed: _, ...run } = found;
  if (run.state === "running") return { kind: "in_flight", run };
  return { kind: "mismatch", run };
}

/** Whether user `param` (a uuid parameter; null: not asked) has a budget (migration 014). */
const budgetedColumn = (param: string) =>
  `CASE WHEN ${param}::uuid IS NOT NULL
        THEN EXISTS (SELECT 1 FROM user_budgets WHERE user_id = ${param}::uuid) END AS budgeted`;

async function lockSession(tx: Queryable, sessionId: string): Promise<void> {
  await tx.query("SELECT id FROM sessions WHERE id = $1 FOR NO KEY UPDATE", [sessionId]);
}

async function lockLiveRun(
  tx: Queryable,
  sessionId: string,
  now: Date,
): Promise<{ run: RunRow; lapsed: boolean } | null> {
  const rows = await tx.query<RunRow & { lapsed: boolean }>(
    `SELECT ${RUN_COLUMNS}, ${lapsedColumn("$2")} FROM runs
     WHERE session_id = $1 AND state IN ('running', 'awaiting_client') FOR UPDATE`,
    [sessionId, now],
  );
  if (rows[0] === undefined) return null;
  const { lapsed, ...run } = rows[0];
  return { run, lapsed };
}

export interface Superseded {
  /** The run after: running, held by the caller's turn, pause cleared, seq bumped. */
  run: RunRow;
  /** Whether the user has a budget; present when `userId` was given. */
  budgeted?: boolean;
  /** The run before, with its pause (pending tool calls to cancel) and its holder. */
  previous: RunRow;
  /** Where the superseded turn hands over what it held, when a live turn was cut and a key was given. */
  handoff: HandoffSlot | null;
}

/**
 * `break` and `inject`: always accepted while a run is live. The caller takes
 * the run over (its turn becomes the fence, so the superseded holder's later
 * updates do nothing), the pause is cleared, and `supersede_seq` is bumped and
 * announced (NOTIFY, delivered at commit) so an instance streaming the old
 * turn stops. Null when no run is live (422 `no_active_run`). With
 * `handoffKey`, a turn cut while running (its claim not lapsed) gets a hand-off
 * slot for that key, opened in the same transaction, so the turn finds it as
 * soon as it hears of the supersede.
 */
export async function supersede(
  db: Queryable,
  c: ClaimRequest & { handoffKey?: string },
): Promise<Superseded | null> {
  return await inTransaction(db, async (tx) => {
    await lockSession(tx, c.sessionId);
    const live = await lockLiveRun(tx, c.sessionId, c.now);
    if (live === null) return null;
    const previous = live.run;
    // A turn whose holder is gone cannot record its own cut: it is traced here.
    if (live.lapsed) {
      await tx.query("SELECT switchyard_trace_lost_turn(runs, $2) FROM runs WHERE id = $1", [
        previous.id,
        c.now,
      ]);
    }
    const rows = await tx.query<RunRow & { budgeted: boolean | null }>(
      `UPDATE runs
       SET state = 'running', pause = NULL, current_turn = $2, claimed_by = $3, claim_expires = $4,
           supersede_seq = supersede_seq + 1, updated_at = $5
       WHERE id = $1 RETURNING ${RUN_COLUMNS}, ${budgetedColumn("$6")}`,
      [previous.id, c.turnId, c.instance, leaseUntil(c.now, c.leaseMs), c.now, c.userId ?? null],
    );
    const { budgeted, ...run } = rows[0];
    const flag = budgeted === null ? {} : { budgeted };
    await notifySuperseded(tx, previous.id, run.supersede_seq);
    const cut = previous.state === "running" && !live.lapsed;
    if (!cut || c.handoffKey === undefined) return { run, previous, handoff: null, ...flag };
    const handoff = { runId: previous.id, seq: run.supersede_seq };
    await openHandoffSlot(tx, { ...handoff, recipientKey: c.handoffKey, now: c.now });
    return { run, previous, handoff, ...flag };
  });
}
