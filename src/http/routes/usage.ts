import { usageReport } from "../../core/usage_report.ts";
import { listUsageEvents } from "../../store/usage.ts";
import type { Endpoint } from "../context.ts";
import { jsonResponse } from "../error_response.ts";
import { liveSession } from "./sessions.ts";

/** GET /api/v1/sessions/{id}/usage: the usage report, no wrapper. */
export const getUsage: Endpoint = {
  auth: "bearer",
  async handle(ctx) {
    const session = await liveSession(ctx);
    const events = await listUsageEvents(ctx.deps.db, session.id);
    return jsonResponse(usageReport(events, { encrypted: session.key_id !== null }));
  },
};
