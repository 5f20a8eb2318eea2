/**
 * What a checked answer to a pause changes (decisions.md §3, §5, §7): the
 * session approvals and trace events it records, and the run input it extends
 * — in memory for a plaintext run, as sealed additions for an encrypted one
 * (decisions.md §8: the client's tool results are kept only as its envelopes).
 */
import { approvalTarget, approvalTracePayload } from "../core/approvals.ts";
import type { Continuation } from "../core/continuation.ts";
import type { CheckedContinuation } from "../core/continuation_check.ts";
import { toolResultReference } from "../core/continuation_sealed.ts";
import { toolCallTracePayload } from "../core/tool_mediation.ts";
import { recordApproval } from "../store/approvals.ts";
import type { NewTraceEvent } from "../store/traces.ts";
import { PLAN_APPROVED } from "./plan_text.ts";
import type { RunInput } from "./run_input.ts";
import type { Addition } from "./sealed_run.ts";
import { traceEvent, type TraceScope } from "./trace_records.ts";
import { noteTrace, type TurnScope } from "./turn_records.ts";

export type Resume = "loop" | "idle";

type Answer = Extract<CheckedContinuation, { type: "tool_results" | "approval_decisions" }>;

/**
 * Records the answer's approvals (session approvals at once, their trace
 * events) and tool call outcomes; the trace events go with the turn's other
 * records where it gathers them (noteTrace).
 */
export async function recordAnswer(t: TurnScope, checked: Answer): Promise<Resume> {
  const { deps } = t;
  const scope: TraceScope = { sessionId: t.session.id, traceId: t.turnId, now: deps.now() };
  const events: NewTraceEvent[] = [];
  const approve = async (
    type: string,
    id: string,
    decision: "approved" | "rejected",
    reason?: string | null,
  ) => {
    await recordApproval(deps.db, {
      id: deps.newId(),
      sessionId: t.session.id,
      runId: t.runId,
      targetType: type,
      targetId: id,
      decision,
      reason: reason ?? null,
      now: deps.now(),
    });
    events.push(
      traceEvent(scope, "approval", {
        ...approvalTracePayload(type as "plan", id, decision, reason),
      }),
    );
  };
  if (checked.type === "tool_results") {
    for (const a of checked.approvals) await approve("tool_call", a.call_id, a.decision);
    for (const r of checked.results) {
      const status = r.decision === "rejected" ? "rejected" : r.is_error ? "failed" : "completed";
      events.push(traceEvent(scope, "tool_call", toolCallTracePayload(r.call_id, r.name, status)));
    }
  } else {
    for (const d of checked.decisions) {
      const target = approvalTarget(d.approval);
      await approve(target.target_type, target.target_id, d.decision, d.reason);
    }
  }
  await noteTrace(t, events);
  return checked.type === "approval_decisions" && checked.outcome === "idle" ? "idle" : "loop";
}

function approvedBy(checked: Extract<Answer, { type: "approval_decisions" }>) {
  const approved = checked.decisions.filter((d) => d.decision === "approved");
  return {
    approved_paths: approved.flatMap((d) =>
      d.approval.kind === "remote_disclosure" ? d.approval.paths ?? [] : []
    ),
    cost_limit: approved.some((d) => d.approval.kind === "cost_limit"),
    plan_approved: checked.outcome === "ordinary_turn",
  };
}

/** A plaintext run: the answer joins the run input kept in `runs.run_input`. */
export function applyToInput(input: RunInput, checked: Answer): void {
  if (checked.type === "tool_results") {
    for (const r of checked.for_model) {
      input.conversation.push({
        role: "tool",
        callId: r.call_id,
        content: r.content,
        isError: r.is_error,
      });
    }
    return;
  }
  const a = approvedBy(checked);
  input.approved_paths.push(...a.approved_paths);
  if (a.cost_limit) input.cost_limit_approved = true;
  if (a.plan_approved) {
    input.plan_mode = false;
    input.conversation.push({ role: "user", content: PLAN_APPROVED });
  }
}

/**
 * An encrypted run: the answer becomes additions naming what the client
 * sealed. A result the client wrote is its envelope; a result the service
 * wrote (denied, memory, an empty or rejected default) stays service text.
 */
export function additionsOf(checked: Answer, original: Continuation): Addition[] {
  if (checked.type === "approval_decisions") return [{ kind: "approvals", ...approvedBy(checked) }];
  const given = original.type === "tool_results" ? original.data.results : [];
  return checked.for_model.map((r): Addition => {
    const client = given.find((g) => g.call_id === r.call_id);
    return client?.content !== undefined
      ? {
        kind: "tool_result",
        call_id: r.call_id,
        ref: toolResultReference(r.call_id),
        is_error: r.is_error,
      }
      : {
        kind: "tool_result",
        call_id: r.call_id,
        ref: null,
        content: r.content,
        is_error: r.is_error,
      };
  });
}
