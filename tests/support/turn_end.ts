/**
 * A claimed turn and its end as the engine hands it to the writer, for store
 * tests: prompt and reply, a trace event of each, a usage event.
 */
import assert from "node:assert/strict";
import { uuidv7 } from "../../src/platform/ids.ts";
import type { Queryable } from "../../src/store/db.ts";
import { claimForExecute } from "../../src/store/run_admission.ts";
import { insertSession } from "../../src/store/sessions.ts";
import type { RunMove, TurnRecords } from "../../src/store/turn_writes.ts";
import { insertUserWithKey } from "../../src/store/users.ts";

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

/** A new user's new session. */
export async function newSession(
  db: Queryable,
  now: Date,
): Promise<{ id: string; userId: string }> {
  const userId = uuidv7();
  await insertUserWithKey(db, { id: userId, keyHash: "x", now });
  const id = (await insertSession(db, { id: uuidv7(), userId, title: "t", now })).id;
  return { id, userId };
}

/** A turn claimed on a new session. */
export async function claimedTurn(db: Queryable, now: Date): Promise<Turn> {
  const session = await newSession(db, now);
  const turn = { sessionId: session.id, runId: uuidv7(), turnId: uuidv7() };
  assert.equal((await claimForExecute(db, { ...turn, instance: "i1", now })).kind, "claimed");
  return turn;
}

/** How many transactions wrote these sessions' rows of `table` (each row keeps its writer's id). */
export async function transactionsWriting(
  db: Queryable,
  table: string,
  sessions: readonly string[],
): Promise<number> {
  const rows = await db.query<{ n: number }>(
    `SELECT count(DISTINCT xmin::text)::int AS n FROM ${table} WHERE session_id = ANY ($1::uuid[])`,
    [sessions],
  );
  return rows[0].n;
}
