/**
 * Mediating the tool calls of one model reply (interface.md "Tool permission
 * mediation", decisions.md §3, §7). Denied and unknown tools are answered by
 * the service with `denied by policy`; `memory` is executed by the service;
 * `allow` and `ask` calls go to the client. When nothing goes to the client,
 * the model is called again at once.
 */
import type { PathMatcher } from "./globs.ts";
import { type MemoryOp, memoryResultText, parseMemoryCall } from "./memory_tool.ts";
import { normalisePath } from "./paths.ts";
import { toolCallPath } from "./run_items.ts";
import { modeOfTool, type ToolDefinition } from "./tool_catalog.ts";
import { traceArguments } from "./tool_call_label.ts";
import type { PermissionMode } from "./vocabulary.ts";

export const DENIED_BY_POLICY = "denied by policy";

/** A call as the model made it; the orchestrator gives it the service's own call id. */
export interface ModelToolCall {
  call_id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** A call returned to the client (interface.md "Tool request"). */
export interface ToolRequest {
  call_id: string;
  name: string;
  arguments: Record<string, unknown>;
  requires_approval: "allow" | "ask";
}

/** A result the service wrote itself; its content never carries user text. */
export interface ServiceResult {
  call_id: string;
  name: string;
  content: string;
  is_error: boolean;
}

export interface MemoryInstruction {
  call_id: string;
  op: MemoryOp;
}

export interface MediationContext {
  /** `toolCatalog(request)`. */
  catalog: readonly ToolDefinition[];
  /** `TurnDecision.permissions`. */
  permissions: Readonly<Record<string, PermissionMode>>;
  plan_mode: boolean;
  /** `constrainedPathMatcher(request.policy)`. */
  constrained: PathMatcher;
  workspace_root: string | null;
}

export interface ToolMediation {
  /** Every call id of the reply, in the model's order: results go back in this order. */
  order: string[];
  tool_requests: ToolRequest[];
  /** Denied, unknown, and memory calls with bad arguments. */
  service_results: ServiceResult[];
  /** Valid memory calls: run each, then answer it with `memoryResult`. */
  memory: MemoryInstruction[];
  /** Calls whose `path` is constrained: their results are constrained content (§6). */
  constrained_call_ids: string[];
  next: "await_client" | "call_model";
}

type Route =
  | { to: "client"; mode: "allow" | "ask" }
  | { to: "service" }
  | { to: "denied" };

function route(name: string, ctx: MediationContext): Route {
  const tool = ctx.catalog.find((t) => t.name === name);
  if (tool === undefined) return { to: "denied" };
  const mode = modeOfTool(tool, ctx.permissions, ctx.plan_mode);
  if (mode === "deny") return { to: "denied" };
  return tool.executor === "service" ? { to: "service" } : { to: "client", mode };
}

/**
 * Whether a call by this name will reach the client; known as soon as the
 * name is, so a stream forwards `tool_call_started` only for these.
 */
export function isClientBound(name: string, ctx: MediationContext): boolean {
  return route(name, ctx).to === "client";
}

export function deniedResult(call: { call_id: string; name: string }): ServiceResult {
  return { call_id: call.call_id, name: call.name, content: DENIED_BY_POLICY, is_error: true };
}

export function memoryResult(call: MemoryInstruction, existed: boolean): ServiceResult {
  return {
    call_id: call.call_id,
    name: "memory",
    content: memoryResultText(call.op, existed),
    is_error: false,
  };
}

export function isConstrainedCall(call: ModelToolCall, ctx: MediationContext): boolean {
  const path = toolCallPath(call);
  return path !== null && ctx.constrained(normalisePath(path, ctx.workspace_root));
}

export function mediateToolCalls(
  calls: readonly ModelToolCall[],
  ctx: MediationContext,
): ToolMediation {
  const out: ToolMediation = {
    order: calls.map((c) => c.call_id),
    tool_requests: [],
    service_results: [],
    memory: [],
    constrained_call_ids: calls.filter((c) => isConstrainedCall(c, ctx)).map((c) => c.call_id),
    next: "call_model",
  };
  for (const call of calls) {
    const r = route(call.name, ctx);
    if (r.to === "denied") out.service_results.push(deniedResult(call));
    else if (r.to === "client") {
      out.tool_requests.push({
        call_id: call.call_id,
        name: call.name,
        arguments: call.arguments,
        requires_approval: r.mode,
      });
    } else {
      const op = parseMemoryCall(call.arguments);
      if (op.ok) out.memory.push({ call_id: call.call_id, op: op.value });
      else {
        out.service_results.push({
          call_id: call.call_id,
          name: call.name,
          content: op.failure.message,
          is_error: true,
        });
      }
    }
  }
  out.next = out.tool_requests.length > 0 ? "await_client" : "call_model";
  return out;
}

export interface ResultForModel {
  call_id: string;
  content: string;
  is_error: boolean;
}

/**
 * The results fed back to the model, in the reply's call order: the service's
 * own (denied, memory) beside the client's. A call with no result is a bug of
 * the caller, since continuation checks guarantee one each.
 */
export function resultsForModel(
  order: readonly string[],
  service: readonly ResultForModel[],
  client: readonly ResultForModel[],
): ResultForModel[] {
  return order.map((id) => {
    const found = service.find((r) => r.call_id === id) ?? client.find((r) => r.call_id === id);
    if (found === undefined) throw new Error(`no result for tool call '${id}'`);
    return { call_id: id, content: found.content, is_error: found.is_error };
  });
}

export type ToolCallStatus =
  | "requested"
  | "denied"
  | "executed"
  | "completed"
  | "failed"
  | "rejected"
  | "cancelled";

/**
 * The `tool_call` trace payload: names and ids, never results. `args` only for
 * a plaintext session's call as the model asked it: an encrypted session
 * stores nothing readable (decisions.md §8), so its recorders leave them out.
 */
export function toolCallTracePayload(
  callId: string,
  toolName: string,
  status: ToolCallStatus,
  args?: Readonly<Record<string, unknown>>,
) {
  return {
    type: "tool_call" as const,
    call_id: callId,
    tool_name: toolName,
    status,
    ...(args === undefined ? {} : { arguments: traceArguments(args) }),
  };
}
