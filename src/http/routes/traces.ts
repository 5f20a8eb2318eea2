import { traceView, traceWindow } from "../../core/trace_view.ts";
import { listTraceEvents } from "../../store/traces.ts";
import type { Endpoint } from "../context.ts";
import { errorResponse, jsonResponse } from "../error_response.ts";
import { liveSession } from "./sessions.ts";

/** GET /api/v1/sessions/{id}/traces: a window of the session's trace, oldest first. */
export const getTrace: Endpoint = {
  auth: "bearer",
  async handle(ctx) {
    const session = await liveSession(ctx);
    const window = traceWindow({
      limit: ctx.url.searchParams.get("limit"),
      offset: ctx.url.searchParams.get("offset"),
    });
    // A bad query parameter is 400, not the 422 of a body failing validation (decisions.md §2).
    if (!window.ok) return errorResponse(window.failure, { status: 400 });
    const events = await listTraceEvents(ctx.deps.db, session.id, window.value);
    return jsonResponse(traceView(session.id, events));
  },
};
