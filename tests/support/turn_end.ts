/**
 * A claimed turn and its end as the engine hands it to the writer, for store
 * tests: prompt and reply, a trace event of each, a usage event.
 */
import { uuidv7 } from "../../src/platform/ids.ts";
import type { RunMove, TurnRecords } from "../../src/store/turn_writes.ts";

export interface Turn {
  sessionId: string;
  runId: string;
  turnId: string;
}

export function turnEnd(t: Turn, now: Date, reply = "answer"): [RunMove, TurnRecords] {
  const message = (role: string, text: string) => ({
    id: uuidv7(),
    sessionId: t.sessionId,
    runId: t.runId,
    role,
    content: { plaintext: text },
    interruptedUnlessMoved: role === "assistant",
    now,
  });
  const event = (messageIndex: number) => ({
    sessionId: t.sessionId,
    traceId: t.turnId,
    eventType: "message" as const,
    messageIndex,
    payload: { plaintext: { type: "message" } },
    now,
  });
  return [
    { runId: t.runId, turnId: t.turnId, state: "idle", now },
    {
      messages: [message("user", "question"), message("assistant", reply)],
      trace: [event(0), event(1)],
      usage: [{
        sessionId: t.sessionId,
        traceId: t.turnId,
        provider: "openai",
        model: "m",
        taskType: "chat",
        inputTokens: 3,
        outputTokens: 4,
        cost: "0.01",
        now,
      }],
    },
  ];
}
