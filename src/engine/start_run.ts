/**
 * `execute` (interface.md "POST …/execute", decisions.md §7): claims the
 * session's run atomically (409 `run_in_flight` while a turn runs; a run
 * waiting for the client is superseded and its pending tool calls
 * cancelled), persists the user message, and runs the turn loop.
 */
import { ServiceError } from "../core/errors.ts";
import type { Pause } from "../core/run_state.ts";
import { toolCallTracePayload } from "../core/tool_mediation.ts";
import type { TurnRequest } from "../core/turn_request_types.ts";
import { parseCredentialHeaders } from "../providers/credentials.ts";
import { catalogForRequest } from "../providers/request_catalog.ts";
import { claimForExecute } from "../store/run_admission.ts";
import type { RunRow } from "../store/runs.ts";
import type { SessionRow } from "../store/sessions.ts";
import { appendTraceEvents } from "../store/traces.ts";
import { respondWithTurn } from "./respond.ts";
import { newRunInput, type RunInput } from "./run_input.ts";
import { traceEvent, type TraceScope } from "./trace_records.ts";
import type { EngineDeps, TurnContext } from "./turn_context.ts";
import { runTurns } from "./turn_loop.ts";
import { persistMessage } from "./turn_records.ts";

export interface TurnCall {
  deps: EngineDeps;
  session: SessionRow;
  headers: Headers;
  stream: boolean;
}

export function wantsStream(headers: Headers): boolean {
  return (headers.get("accept") ?? "").toLowerCase().includes("text/event-stream");
}

/** Records the pending tool calls of a superseded pause as cancelled. */
export async function cancelPendingCalls(
  deps: EngineDeps,
  scope: TraceScope,
  previous: RunRow | null,
): Promise<void> {
  const pause = previous?.pause as Pause | null | undefined;
  if (pause?.kind !== "tool") return;
  await appendTraceEvents(
    deps.db,
    pause.calls.map((c) =>
      traceEvent(scope, "tool_call", toolCallTracePayload(c.call_id, c.name, "cancelled"))
    ),
  );
}

export async function turnContextFor(
  call: TurnCall,
  run: { runId: string; turnId: string; input: RunInput },
): Promise<Omit<TurnContext, "sink" | "signal">> {
  const credentials = parseCredentialHeaders(call.headers);
  const rc = await catalogForRequest(call.deps.registry, credentials, {
    cache: call.deps.listingCache,
  });
  return { deps: call.deps, session: call.session, credentials, rc, ...run };
}

export async function startRun(call: TurnCall, request: TurnRequest): Promise<Response> {
  const { deps, session } = call;
  if (session.key_id !== null) {
    throw ServiceError.of(
      "not_implemented",
      "encrypted sessions cannot run turns on this service yet",
    );
  }
  const input = newRunInput(request);
  const runId = deps.newId();
  const turnId = deps.newId();
  // The catalog is listed before the claim: a slow listing must not hold the run.
  const base = await turnContextFor(call, { runId, turnId, input });
  const claim = await claimForExecute(deps.db, {
    sessionId: session.id,
    runId,
    turnId,
    instance: deps.instance,
    now: deps.now(),
    runInput: input as unknown as Record<string, unknown>,
  });
  if (claim.kind === "in_flight") {
    throw ServiceError.of(
      "run_in_flight",
      "run in flight: a turn of this session is already running",
    );
  }
  const scope = { sessionId: session.id, traceId: turnId, now: deps.now() };
  await cancelPendingCalls(deps, scope, claim.superseded);
  return await respondWithTurn({
    deps,
    runId,
    turnId,
    seq: claim.run.supersede_seq,
    stream: call.stream,
    async run(sink, signal) {
      const t: TurnContext = { ...base, sink, signal };
      await persistMessage(t, { role: "user", text: request.input.text });
      return await runTurns(t);
    },
  });
}
