/**
 * Standalone approvals (interface.md "Tool permission mediation": raised only
 * for decisions with no tool): `remote_disclosure` (decisions.md §6),
 * `cost_limit` (§5) and `plan` (§7). Each has its detail, its outcome on
 * approve and reject, and a trace payload. Ids are passed in.
 */
import { type CostEstimate, exceedsCostLimit } from "./cost.ts";
import type { RoutingRule } from "./turn_request_types.ts";

export const APPROVAL_KINDS = ["remote_disclosure", "cost_limit", "plan"] as const;
export type ApprovalKind = typeof APPROVAL_KINDS[number];

export const DECISIONS = ["approved", "rejected"] as const;
export type Decision = typeof DECISIONS[number];

export interface ModelRef {
  provider: string;
  model: string;
}

export type PendingApproval =
  | {
    approval_id: string;
    kind: "remote_disclosure";
    detail: { provider: string; model: string; paths: string[] };
  }
  | {
    approval_id: string;
    kind: "cost_limit";
    detail: {
      limit: string;
      estimated_cost: { min: string; max: string };
      currency: string;
      provider: string;
      model: string;
    };
  }
  | { approval_id: string; kind: "plan"; detail: { plan_id: string; plan: string } };

/**
 * What a paused run keeps of an approval: no plan text and no detail, so the
 * pause holds nothing an encrypted session may not store in the clear. The
 * disclosed paths are kept because approving them holds for the rest of the run.
 */
export interface ApprovalRef {
  approval_id: string;
  kind: ApprovalKind;
  paths?: string[];
  plan_id?: string;
}

export function remoteDisclosureApproval(
  approvalId: string,
  model: ModelRef,
  paths: readonly string[],
): PendingApproval {
  return {
    approval_id: approvalId,
    kind: "remote_disclosure",
    detail: { provider: model.provider, model: model.model, paths: [...paths] },
  };
}

export function costLimitApproval(
  approvalId: string,
  limit: string,
  estimate: CostEstimate,
  model: ModelRef,
): PendingApproval {
  return {
    approval_id: approvalId,
    kind: "cost_limit",
    detail: {
      limit,
      estimated_cost: { min: estimate.min, max: estimate.max },
      currency: estimate.currency,
      provider: model.provider,
      model: model.model,
    },
  };
}

export function planApproval(approvalId: string, planId: string, plan: string): PendingApproval {
  return { approval_id: approvalId, kind: "plan", detail: { plan_id: planId, plan } };
}

export function approvalRef(approval: PendingApproval): ApprovalRef {
  const ref: ApprovalRef = { approval_id: approval.approval_id, kind: approval.kind };
  if (approval.kind === "remote_disclosure") ref.paths = [...approval.detail.paths];
  if (approval.kind === "plan") ref.plan_id = approval.detail.plan_id;
  return ref;
}

/** The matched rule's `cost_limit`, when the estimate's `max` exceeds it. */
export function exceededCostLimit(rule: RoutingRule | null, estimate: CostEstimate): string | null {
  const limit = rule?.cost_limit;
  return limit !== undefined && exceedsCostLimit(limit, estimate.max) ? limit : null;
}

export interface PreCallInput {
  approval_id: string;
  model: ModelRef;
  /** `TurnDecision.disclosure_paths`: already minus the paths approved in this run. */
  disclosure_paths: readonly string[];
  rule: RoutingRule | null;
  estimate: CostEstimate;
  /** A cost_limit approval already given in this run holds for its rest. */
  cost_limit_approved: boolean;
}

/**
 * The approval the run must pause for before calling the model, or null.
 * Disclosure is asked first: nothing is spent before the user agrees to send.
 */
export function preCallApproval(input: PreCallInput): PendingApproval | null {
  if (input.disclosure_paths.length > 0) {
    return remoteDisclosureApproval(input.approval_id, input.model, input.disclosure_paths);
  }
  const limit = input.cost_limit_approved ? null : exceededCostLimit(input.rule, input.estimate);
  if (limit !== null) {
    return costLimitApproval(input.approval_id, limit, input.estimate, input.model);
  }
  return null;
}

/**
 * What the run does after a decision:
 * - `proceed`: disclosure approved; decide the turn again with the paths
 *   approved (a cost limit may still pause it), then call the model;
 * - `call_model`: cost limit approved;
 * - `ordinary_turn`: plan approved; the run leaves plan mode and goes on;
 * - `idle`: rejected; the run ends and nothing is spent.
 */
export type ApprovalOutcome = "proceed" | "call_model" | "ordinary_turn" | "idle";

export function approvalOutcome(kind: ApprovalKind, decision: Decision): ApprovalOutcome {
  if (decision === "rejected") return "idle";
  if (kind === "remote_disclosure") return "proceed";
  if (kind === "cost_limit") return "call_model";
  return "ordinary_turn";
}

/** Several decisions at once: any rejection ends the run; a plan outranks the rest. */
export function combinedOutcome(
  decisions: readonly { kind: ApprovalKind; decision: Decision }[],
): ApprovalOutcome {
  const outcomes = decisions.map((d) => approvalOutcome(d.kind, d.decision));
  for (const o of ["idle", "ordinary_turn", "proceed"] as const) if (outcomes.includes(o)) return o;
  return "call_model";
}

export interface ApprovalTracePayload {
  type: "approval";
  target_type: string;
  target_id: string;
  decision: Decision;
  reason?: string | null;
}

/**
 * `target_type` is the approval kind (its id the target) or `tool_call` for the
 * `decision` of an ask tool result; a plan is targeted by its plan id.
 */
export function approvalTracePayload(
  targetType: ApprovalKind | "tool_call",
  targetId: string,
  decision: Decision,
  reason?: string | null,
): ApprovalTracePayload {
  const payload: ApprovalTracePayload = {
    type: "approval",
    target_type: targetType,
    target_id: targetId,
    decision,
  };
  if (reason !== undefined) payload.reason = reason;
  return payload;
}

export function approvalTarget(ref: ApprovalRef): { target_type: ApprovalKind; target_id: string } {
  return { target_type: ref.kind, target_id: ref.plan_id ?? ref.approval_id };
}
