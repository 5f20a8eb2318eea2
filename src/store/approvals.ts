/**
 * Approvals recorded for a session: the `decision` of an ask tool result, and
 * the decisions on remote disclosure, cost limit and plan pauses
 * (interface.md, Tool permission mediation; decisions.md §5–7).
 */
import type { Queryable } from "./db.ts";

export type ApprovalDecision = "approved" | "rejected";

export interface ApprovalRow {
  id: string;
  session_id: string;
  run_id: string | null;
  target_type: string;
  target_id: string;
  decision: ApprovalDecision;
  reason: string | null;
  created_at: Date;
}

const COLUMNS = "id, session_id, run_id, target_type, target_id, decision, reason, created_at";

export interface NewApproval {
  id: string;
  sessionId: string;
  runId?: string | null;
  /** e.g. `tool_call`, `remote_disclosure`, `cost_limit`, `plan`. */
  targetType: string;
  /** The call id or approval id decided on. */
  targetId: string;
  decision: ApprovalDecision;
  reason?: string | null;
  now: Date;
}

export async function recordApproval(db: Queryable, a: NewApproval): Promise<ApprovalRow> {
  const rows = await db.query<ApprovalRow>(
    `INSERT INTO approvals (id, session_id, run_id, target_type, target_id, decision, reason, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
    [
      a.id,
      a.sessionId,
      a.runId ?? null,
      a.targetType,
      a.targetId,
      a.decision,
      a.reason ?? null,
      a.now,
    ],
  );
  return rows[0];
}

/** The approvals of one run, in the order made (e.g. paths already disclosed in this run). */
export async function listRunApprovals(db: Queryable, runId: string): Promise<ApprovalRow[]> {
  return await db.query<ApprovalRow>(
    `SELECT ${COLUMNS} FROM approvals WHERE run_id = $1 ORDER BY created_at, id`,
    [runId],
  );
}
