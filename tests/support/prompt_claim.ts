/**
 * An execute claim as a plaintext turn makes it, for store tests: the prompt
 * and its trace event travel with the claim (store/run_admission.ts).
 */
import { uuidv7 } from "../../src/platform/ids.ts";
import type { ExecuteClaimRequest } from "../../src/store/run_admission.ts";

export function promptClaim(sessionId: string, text: string, now: Date): ExecuteClaimRequest {
  const runId = uuidv7();
  const turnId = uuidv7();
  return {
    sessionId,
    runId,
    turnId,
    instance: "i1",
    now,
    runInput: { text },
    records: {
      messages: [{
        id: uuidv7(),
        sessionId,
        runId,
        role: "user",
        content: { plaintext: text },
        now,
      }],
      trace: [{
        sessionId,
        traceId: turnId,
        eventType: "message",
        payload: { plaintext: { role: "user", seq: 0 } },
        messageIndex: 0,
        now,
      }],
      usage: [],
    },
  };
}
