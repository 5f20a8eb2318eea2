import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { uuidv7 } from "../../src/platform/ids.ts";
import { listRunApprovals, recordApproval } from "../../src/store/approvals.ts";
import type { Db } from "../../src/store/db.ts";
import {
  forgetMemory,
  listMemories,
  recallMemories,
  recordMemory,
} from "../../src/store/memories.ts";
import {
  appendMessage,
  findMessageBySeq,
  listHistory,
  replaceMessageContent,
} from "../../src/store/messages.ts";
import { HistoryCache } from "../../src/store/history_cache.ts";
import { migrate } from "../../src/store/migrate.ts";
import { claimForExecute, readTurn } from "../../src/store/run_admission.ts";
import { getSealedContent, putSealedContent } from "../../src/store/sealed_content.ts";
import { deleteSession, insertSession, listMessages } from "../../src/store/sessions.ts";
import {
  appendTraceEvent,
  appendTraceEvents,
  listTraceEvents,
  type TraceEventRow,
  traceRecord,
} from "../../src/store/traces.ts";
import { type TurnTraceEvent, writeTurn } from "../../src/store/turn_writes.ts";
import { appendUsageEvent, listUsageEvents } from "../../src/store/usage.ts";
import { insertUserWithKey } from "../../src/store/users.ts";
import { storesUnderTest } from "../support/databases.ts";

const T0 = new Date("2026-03-01T10:00:00.000Z");
const at = (s: number) => new Date(T0.getTime() + s * 1000);
const ENVELOPE = {
  version: 1,
  algorithm: "A256GCM",
  key_id: "k1",
  nonce: "bm9uY2U=",
  ciphertext: "Y3Q=",
};

async function newUser(db: Db): Promise<string> {
  const userId = uuidv7();
  await insertUserWithKey(db, { id: userId, keyHash: "x", now: T0 });
  return userId;
}

async function newSession(db: Db, userId?: string): Promise<string> {
  const owner = userId ?? await newUser(db);
  return (await insertSession(db, { id: uuidv7(), userId: owner, title: "h", now: T0 })).id;
}

/** A plaintext message saying `text`, of run `runId` (none by default). */
function appendText(
  db: Db,
  sessionId: string,
  role: string,
  text: string,
  runId: string | null = null,
) {
  return appendMessage(db, {
    id: uuidv7(),
    sessionId,
    runId,
    role,
    content: { plaintext: text },
    now: T0,
  });
}

for (const store of storesUnderTest(process.env)) {
  describe(`history store on ${store.name}`, () => {
    let db: Db;
    let opened: Awaited<ReturnType<typeof store.open>>;
    before(async () => {
      opened = await store.open();
      db = opened.db;
      await migrate(db);
    });
    after(() => opened.dispose());

    test("messages take the next seq and list oldest first with their marks", async () => {
      const sessionId = await newSession(db);
      const claim = await claimForExecute(db, {
        sessionId,
        runId: uuidv7(),
        turnId: uuidv7(),
        instance: "i",
        now: T0,
      });
      assert.equal(claim.kind, "claimed");
      const runId = claim.kind === "claimed" ? claim.run.id : null;
      const user = await appendMessage(db, {
        id: uuidv7(),
        sessionId,
        runId,
        role: "user",
        content: { plaintext: "hi" },
        now: at(1),
      });
      const reply = await appendMessage(db, {
        id: uuidv7(),
        sessionId,
        runId,
        role: "assistant",
        content: { plaintext: "hel" },
        provider: "ollama",
        model: "qwen3",
        constrained: true,
        interrupted: true,
        now: at(2),
      });
      assert.equal(user.seq, 1);
      assert.equal(user.provider, null);
      assert.equal(user.constrained, false);
      assert.equal(reply.seq, 2);
      assert.equal(reply.run_id, runId);
      const history = await listHistory(db, sessionId);
      assert.deepEqual(history, [user, reply]);
      assert.equal(history[1].interrupted, true);
      assert.equal(history[1].constrained, true);
      assert.equal(history[1].created_at.toISOString(), at(2).toISOString());
      assert.deepEqual((await listMessages(db, sessionId)).map((m) => m.role), [
        "user",
        "assistant",
      ]);
      assert.equal((await findMessageBySeq(db, sessionId, 2))?.id, reply.id);
      assert.equal(await findMessageBySeq(db, sessionId, 3), null);
      assert.equal(await replaceMessageContent(db, sessionId, 2, { encrypted: ENVELOPE }), true);
      assert.deepEqual((await findMessageBySeq(db, sessionId, 2))?.content, {
        encrypted: ENVELOPE,
      });
      assert.equal(await replaceMessageContent(db, sessionId, 9, { plaintext: "" }), false);
    });

    test("parallel appends to one session never share a seq", async () => {
      const sessionId = await newSession(db);
      const other = opened.reopen ? await opened.reopen() : db;
      await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          appendMessage(i % 2 === 0 ? db : other, {
            id: uuidv7(),
            sessionId,
            role: "user",
            content: { plaintext: `m${i}` },
            now: at(i),
          })),
      );
      assert.deepEqual(
        (await listHistory(db, sessionId)).map((m) => m.seq),
        Array.from({ length: 16 }, (_, i) => i + 1),
      );
    });

    test("appendMessage inside a caller's transaction rolls back with it", async () => {
      const sessionId = await newSession(db);
      await assert.rejects(db.transaction(async (tx) => {
        await appendMessage(tx, {
          id: uuidv7(),
          sessionId,
          role: "user",
          content: { plaintext: "x" },
          now: T0,
        });
        throw new Error("abort");
      }));
      assert.deepEqual(await listHistory(db, sessionId), []);
    });

    test("trace events keep their order, fields and the difference between null and absent rule", async () => {
      const sessionId = await newSession(db);
      const traceId = uuidv7();
      const base = { sessionId, traceId, now: at(1) };
      await appendTraceEvents(db, [
        {
          ...base,
          eventType: "classification",
          taskType: "chat",
          matchedRule: 2,
          payload: { plaintext: { intent: "chat" } },
        },
        {
          ...base,
          eventType: "routing_decision",
          taskType: "chat",
          provider: "openai",
          model: "gpt-4o",
          matchedRule: null,
          payload: { plaintext: { provider: "openai" } },
        },
        { ...base, eventType: "message", payload: { encrypted: ENVELOPE } },
      ]);
      await appendTraceEvent(db, {
        ...base,
        eventType: "routing_decision",
        matchedRule: "docs",
        payload: { plaintext: {} },
      });
      await appendTraceEvents(db, []);
      const events = await listTraceEvents(db, sessionId, { limit: 50, offset: 0 });
      assert.deepEqual(events.map((e) => e.matched_rule), [2, null, undefined, "docs"]);
      assert.deepEqual(events.map((e) => e.event_type), [
        "classification",
        "routing_decision",
        "message",
        "routing_decision",
      ]);
      assert.ok(events.every((e, i) => i === 0 || e.seq > events[i - 1].seq));
      assert.equal(events[1].provider, "openai");
      assert.equal(events[0].provider, null);
      assert.equal(events[0].task_type, "chat");
      assert.equal(events[0].trace_id, traceId);
      assert.deepEqual(events[2].payload, { encrypted: ENVELOPE });
      assert.equal(events[0].created_at.toISOString(), at(1).toISOString());

      await appendTraceEvents(
        db,
        Array.from({ length: 12 }, (_, i) => ({
          ...base,
          eventType: "tool_call" as const,
          payload: { plaintext: { tool_name: `t${i}` } },
        })),
      );
      const many = await listTraceEvents(db, sessionId, { limit: 50, offset: 4 });
      assert.deepEqual(
        many.map((e) => (e.payload.plaintext as { tool_name: string }).tool_name),
        Array.from({ length: 12 }, (_, i) => `t${i}`),
        "in the order recorded, past nine events too",
      );
      const window = await listTraceEvents(db, sessionId, { limit: 2, offset: 1 });
      assert.deepEqual(window.map((e) => e.seq), [events[1].seq, events[2].seq]);
      assert.deepEqual(await listTraceEvents(db, sessionId, { limit: 0, offset: 0 }), []);
      assert.deepEqual(await listTraceEvents(db, sessionId, { limit: 5, offset: 16 }), []);
      assert.deepEqual(
        await listTraceEvents(db, sessionId, {
          limit: Number.MAX_SAFE_INTEGER,
          offset: Number.MAX_SAFE_INTEGER,
        }),
        [],
      );
    });

    test("a turn's plaintext events are one row per message they describe, read back as the events", async () => {
      const sessionId = await newSession(db);
      const base = {
        sessionId,
        traceId: uuidv7(),
        taskType: "code",
        provider: "openai",
        model: "gpt-4o",
        now: at(2),
      };
      const context = (label: string) => ({
        ...base,
        eventType: "context_selection" as const,
        payload: { plaintext: { path: null, kind: "message", label, included: true } },
      });
      const reply = (role: string, interrupted: boolean) => ({
        id: uuidv7(),
        sessionId,
        role,
        content: { plaintext: "hi" },
        interrupted,
        now: at(2),
      });
      const trace: TurnTraceEvent[] = [
        { ...base, eventType: "classification", matchedRule: 0, payload: { plaintext: {} } },
        context("1"),
        context("2"),
        context("3"),
        { ...context("4"), now: at(3) },
        {
          ...base,
          eventType: "message",
          messageIndex: 0,
          payload: { plaintext: { role: "assistant", seq: 0 } },
        },
        { ...base, eventType: "message", payload: { plaintext: { role: "tool" } } },
        {
          ...base,
          eventType: "routing_decision",
          taskType: null,
          provider: "anthropic",
          model: null,
          matchedRule: null,
          payload: { plaintext: { label: "r" } },
        },
        context("5"),
        context("6"),
        {
          ...base,
          eventType: "message",
          messageIndex: 1,
          payload: { plaintext: { role: "user", seq: 0 } },
        },
        { ...base, eventType: "cost", payload: { plaintext: { cost: "0.1" } } },
        { ...base, eventType: "message", payload: { encrypted: ENVELOPE } },
        { ...base, eventType: "tool_call", payload: { plaintext: { $series: "label" } } },
        context("7"),
      ];
      const written = await writeTurn(db, null, {
        messages: [reply("assistant", false), reply("user", true)],
        trace,
        usage: [],
      });
      const rows = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM trace_events WHERE session_id = $1",
        [sessionId],
      );
      // Up to the first message's event and on to the second's; from the second's to the sealed
      // event, which is alone, as is the event whose field is named like a row's own mark.
      assert.equal(rows[0].n, 5);

      const events = await listTraceEvents(db, sessionId, { limit: 50, offset: 0 });
      const shown = (e: TraceEventRow) => [
        e.event_type,
        e.task_type,
        e.provider,
        e.model,
        e.matched_rule === undefined ? "absent" : e.matched_rule,
        e.created_at.toISOString(),
        e.payload,
      ];
      const expected = trace.map((e, i) => {
        const plaintext = e.payload.plaintext as Record<string, unknown> | undefined;
        const seq = e.messageIndex === undefined ? {} : {
          seq: written.messageSeqs[e.messageIndex],
          ...(e.messageIndex === 1 ? { interrupted: true } : {}),
        };
        return shown({
          ...traceRecord(e),
          seq: i,
          matched_rule: e.matchedRule,
          created_at: e.now,
          payload: plaintext === undefined ? e.payload : { plaintext: { ...plaintext, ...seq } },
        } as TraceEventRow);
      });
      assert.deepEqual(events.map(shown), expected);
      assert.deepEqual(written.messageSeqs, [1, 2]);
      assert.ok(events.every((e) => e.trace_id === base.traceId && e.session_id === sessionId));
      // Windows cut through a row's events as through any others.
      for (const [offset, limit] of [[2, 2], [3, 3], [0, 1], [7, 5], [8, 1], [9, 6], [12, 3]]) {
        const window = await listTraceEvents(db, sessionId, { limit, offset });
        assert.deepEqual(
          window.map(shown),
          expected.slice(offset, offset + limit),
          `offset ${offset}, limit ${limit}`,
        );
      }
    });

    test("a write's messages take the session's next seqs in order; another session's fails it whole", async () => {
      const sessionId = await newSession(db);
      await appendText(db, sessionId, "user", "first");
      const traceId = uuidv7();
      const message = (role: string, text: string, session = sessionId) => ({
        id: uuidv7(),
        sessionId: session,
        role,
        content: { plaintext: text },
        now: at(1),
      });
      const described = (messageIndex: number): TurnTraceEvent => ({
        sessionId,
        traceId,
        eventType: "message",
        messageIndex,
        payload: { plaintext: { role: "x" } },
        now: at(1),
      });
      const written = await writeTurn(db, null, {
        messages: [message("user", "a"), message("assistant", "b"), message("tool", "c")],
        trace: [described(2), described(0)],
        usage: [],
      });
      assert.deepEqual(written.messageSeqs, [2, 3, 4]);
      const seqs = await db.query<{ seq: number; role: string }>(
        "SELECT seq, role FROM messages WHERE session_id = $1 ORDER BY seq",
        [sessionId],
      );
      assert.deepEqual(seqs.map((m) => `${m.seq}:${m.role}`), [
        "1:user",
        "2:user",
        "3:assistant",
        "4:tool",
      ]);
      const events = await listTraceEvents(db, sessionId, { limit: 10, offset: 0 });
      assert.deepEqual(events.map((e) => (e.payload.plaintext as { seq: number }).seq), [4, 2]);

      const other = await newSession(db);
      await assert.rejects(writeTurn(db, null, {
        messages: [message("user", "d"), message("user", "e", other)],
        trace: [described(0)],
        usage: [],
      }));
      assert.equal((await listMessages(db, sessionId)).length, 4);
      assert.equal((await listMessages(db, other)).length, 0);
      assert.equal((await listTraceEvents(db, sessionId, { limit: 10, offset: 0 })).length, 2);
      const next = await writeTurn(db, null, {
        messages: [message("user", "f")],
        trace: [],
        usage: [],
      });
      assert.deepEqual(next.messageSeqs, [5], "the failed write left the counter as it was");
    });

    test("a row of events gives back each payload exactly: fields shared, missing, null, nested", async () => {
      const sessionId = await newSession(db);
      const base = { sessionId, traceId: uuidv7(), now: at(4), eventType: "context_selection" };
      const payloads: Record<string, unknown>[] = [
        { type: "context_selection", path: null, kind: "message", label: "m1", included: true },
        { type: "context_selection", path: "a.ts", kind: "file", label: "m2", included: true },
        { type: "context_selection", kind: "message", label: "m3", included: false, extra: null },
        { type: "context_selection", path: null, kind: "message", label: "m4", nested: { a: [1] } },
        { type: "context_selection", path: null, kind: "message", label: "m5", included: "true" },
      ];
      await writeTurn(db, null, {
        messages: [],
        trace: payloads.map((plaintext) => ({ ...base, payload: { plaintext } } as TurnTraceEvent)),
        usage: [],
      });
      const stored = await db.query<{ payload: { plaintext: unknown; each: unknown[] } }>(
        "SELECT payload FROM trace_events WHERE session_id = $1",
        [sessionId],
      );
      assert.equal(stored.length, 1);
      assert.deepEqual(stored[0].payload.plaintext, { type: "context_selection" });
      assert.deepEqual(stored[0].payload.each[0], {
        path: null,
        kind: "message",
        label: "m1",
        included: true,
      });
      const events = await listTraceEvents(db, sessionId, { limit: 50, offset: 0 });
      assert.deepEqual(events.map((e) => e.payload), payloads.map((plaintext) => ({ plaintext })));
    });

    test("a deep history's selection is stored as counting runs and read back event by event", async () => {
      const sessionId = await newSession(db);
      const base = { sessionId, traceId: uuidv7(), now: at(5), eventType: "context_selection" };
      const selection = (label: number, included: boolean) => ({
        type: "context_selection",
        path: null,
        kind: "message",
        label: String(label),
        included,
        reason: included ? "within budget" : "over budget",
      });
      const payloads = [
        ...Array.from({ length: 250 }, (_, i) => selection(399 - i, true)),
        { type: "context_selection", path: "a.ts", kind: "file", label: "a.ts", included: true },
        ...Array.from({ length: 150 }, (_, i) => selection(149 - i, false)),
      ];
      await writeTurn(db, null, {
        messages: [],
        trace: payloads.map((plaintext) => ({ ...base, payload: { plaintext } } as TurnTraceEvent)),
        usage: [],
      });
      const stored = await db.query<{ n: number }>(
        "SELECT jsonb_array_length(payload -> 'each') AS n FROM trace_events WHERE session_id = $1",
        [sessionId],
      );
      assert.deepEqual(stored, [{ n: 3 }]);
      const all = await listTraceEvents(db, sessionId, { limit: 1000, offset: 0 });
      assert.deepEqual(all.map((e) => e.payload), payloads.map((plaintext) => ({ plaintext })));
      for (const [offset, limit] of [[0, 1], [249, 3], [251, 1], [100, 200], [399, 5]]) {
        const window = await listTraceEvents(db, sessionId, { limit, offset });
        assert.deepEqual(
          window.map((e) => e.payload.plaintext),
          payloads.slice(offset, offset + limit),
          `offset ${offset}, limit ${limit}`,
        );
      }
    });

    test("a row of events as written before migration 006 (an array of payloads) still reads", async () => {
      const sessionId = await newSession(db);
      const payloads = [1, 2, 3].map((n) => ({
        plaintext: { type: "context_selection", label: `m${n}` },
      }));
      await db.query(
        `INSERT INTO trace_events (session_id, trace_id, event_type, payload, created_at)
         VALUES ($1, $2, 'context_selection', $3::jsonb, $4)`,
        [sessionId, uuidv7(), JSON.stringify(payloads), T0],
      );
      const events = await listTraceEvents(db, sessionId, { limit: 2, offset: 1 });
      assert.deepEqual(events.map((e) => e.payload), payloads.slice(1));
    });

    test("usage events keep unreported counts null, exact costs, and drop figures when sealed", async () => {
      const sessionId = await newSession(db);
      const base = { sessionId, traceId: uuidv7(), provider: "openai", model: "gpt-4o", now: T0 };
      await appendUsageEvent(db, {
        ...base,
        taskType: "chat",
        inputTokens: 10,
        outputTokens: null,
        cost: "0.000123456789012345678",
      });
      await appendUsageEvent(db, { ...base, taskType: "edit", cost: null });
      await appendUsageEvent(db, {
        ...base,
        taskType: "plan",
        inputTokens: 5,
        outputTokens: 6,
        cost: "1.5",
        sealed: true,
      });
      const rows = await listUsageEvents(db, sessionId);
      assert.deepEqual(
        rows.map((r) => [r.task_type, r.input_tokens, r.output_tokens, r.cost, r.sealed]),
        [
          ["chat", 10, null, "0.000123456789012345678", false],
          ["edit", null, null, null, false],
          ["plan", null, null, null, true],
        ],
      );
      assert.equal(rows[0].currency, "USD");
      for (let i = 0; i < 12; i++) {
        await appendUsageEvent(db, { ...base, taskType: `t${i}`, sealed: true });
      }
      assert.deepEqual(
        (await listUsageEvents(db, sessionId)).slice(3).map((r) => r.task_type),
        Array.from({ length: 12 }, (_, i) => `t${i}`),
        "in the order recorded, past nine events too",
      );
      assert.equal(rows[0].cached_tokens, null);
      assert.ok(rows[0].seq < rows[1].seq);
    });

    test("memories: a key is replaced, scopes are apart, forget removes, the newest 40 are listed", async () => {
      const userId = await newUser(db);
      const sessionId = await newSession(db, userId);
      const user = { userId, sessionId: null };
      const session = { userId, sessionId };
      const first = await recordMemory(db, {
        ...user,
        id: uuidv7(),
        key: "editor",
        value: { plaintext: "vim" },
        now: at(1),
      });
      const replaced = await recordMemory(db, {
        ...user,
        id: uuidv7(),
        key: "editor",
        value: { plaintext: "helix" },
        now: at(2),
      });
      assert.equal(replaced.id, first.id);
      assert.deepEqual(replaced.value, { plaintext: "helix" });
      assert.equal(replaced.updated_at.toISOString(), at(2).toISOString());
      await recordMemory(db, {
        ...session,
        id: uuidv7(),
        key: "editor",
        value: { encrypted: ENVELOPE },
        now: at(3),
      });
      const recalled = await recallMemories(db, userId, sessionId);
      assert.deepEqual(recalled.user.map((m) => m.value), [{ plaintext: "helix" }]);
      assert.deepEqual(recalled.session.map((m) => m.value), [{ encrypted: ENVELOPE }]);

      for (let i = 0; i < 45; i++) {
        await recordMemory(db, {
          ...session,
          id: uuidv7(),
          key: `k${i}`,
          value: { plaintext: String(i) },
          now: at(10 + i),
        });
      }
      const listed = await listMemories(db, session);
      assert.equal(listed.length, 40);
      assert.equal(listed[0].key, "k44");
      assert.equal(listed[39].key, "k5");
      const otherSession = await newSession(db, userId);
      await recordMemory(db, {
        userId,
        sessionId: otherSession,
        id: uuidv7(),
        key: "elsewhere",
        value: { plaintext: "x" },
        now: at(99),
      });
      const both = await recallMemories(db, userId, sessionId);
      assert.deepEqual(both.user.map((m) => m.key), ["editor"]);
      assert.deepEqual(both.session.map((m) => m.key), listed.map((m) => m.key));
      // A turn's reading (migration 005, preview's and execute's) recalls the same, in order.
      const reading = await readTurn(
        db,
        { id: sessionId, user_id: userId, key_id: null },
        new HistoryCache(),
      );
      assert.deepEqual(
        reading.memory.map((m) => [m.key, m.value, m.session_id]),
        [...both.user, ...both.session].map((m) => [m.key, m.value, m.session_id]),
      );

      // The user's memories alone (a session with none), the session's alone, and none at all.
      const recalledIn = async (id: string) =>
        (await readTurn(db, { id, user_id: userId, key_id: null }, new HistoryCache())).memory
          .map((m) => m.key);
      assert.deepEqual(await recalledIn(await newSession(db, userId)), ["editor"]);

      assert.equal(await forgetMemory(db, { ...user, key: "editor" }), true);
      assert.equal(await forgetMemory(db, { ...user, key: "editor" }), false);
      assert.deepEqual(await listMemories(db, user), []);
      assert.deepEqual(await recalledIn(sessionId), listed.map((m) => m.key));
      assert.deepEqual(await recalledIn(await newSession(db, userId)), []);
      assert.equal((await listMemories(db, session, 100)).length, 46, "session store untouched");

      assert.equal(await deleteSession(db, userId, sessionId), true);
      assert.deepEqual(await listMemories(db, session), []);
    });

    test("preview's reading holds every message oldest first, those of no run included", async () => {
      const userId = await newUser(db);
      const sessionId = await newSession(db, userId);
      for (let i = 0; i < 3; i++) {
        await appendMessage(db, {
          id: uuidv7(),
          sessionId,
          runId: null,
          role: i % 2 === 0 ? "user" : "assistant",
          content: { plaintext: `m${i}` },
          constrained: i === 2,
          now: at(i),
        });
      }
      const reading = await readTurn(
        db,
        { id: sessionId, user_id: userId, key_id: null },
        new HistoryCache(),
      );
      assert.deepEqual(reading.history, [
        { seq: 1, run_id: null, role: "user", content: { plaintext: "m0" }, constrained: false },
        {
          seq: 2,
          run_id: null,
          role: "assistant",
          content: { plaintext: "m1" },
          constrained: false,
        },
        { seq: 3, run_id: null, role: "user", content: { plaintext: "m2" }, constrained: true },
      ]);
      assert.deepEqual(reading.memory, []);
    });

    test("a read past what an instance holds gives the whole history, whoever wrote the rest", async () => {
      const userId = await newUser(db);
      const sessionId = await newSession(db, userId);
      const session = { id: sessionId, user_id: userId, key_id: null };
      const append = (text: string, runId: string | null = null) =>
        appendText(db, sessionId, "user", text, runId);
      const texts = (r: { history: readonly { content: Record<string, unknown> }[] }) =>
        r.history.map((m) => m.content.plaintext);
      const history = (after: number, afterId: string | null, leaveOut: string | null = null) =>
        db.query<{ h: { after: number; rows: unknown[][] } }>(
          "SELECT switchyard_history($1, $2, $3, $4) AS h",
          [sessionId, leaveOut, after, afterId],
        ).then((rows) => rows[0].h);

      const [m1, m2] = [await append("m1"), await append("m2")];
      const mine = new HistoryCache();
      assert.deepEqual(texts(await readTurn(db, session, mine)), ["m1", "m2"]);
      // Another instance writes; this one then reads only what came after its last message.
      await append("m3");
      assert.deepEqual((await history(m2.seq, m2.id)).rows.map((r) => r[0]), [3]);
      assert.deepEqual(texts(await readTurn(db, session, mine)), ["m1", "m2", "m3"]);
      assert.equal(mine.mark(sessionId).seq, 3);

      // A message that is not there (seq taken by another message) reads the whole history.
      const unknown = await history(m1.seq, m2.id);
      assert.deepEqual([unknown.after, unknown.rows.map((r) => r[0])], [0, [1, 2, 3]]);

      // The claim reads the same way, leaving out its own run's prompt; the next claim sees it.
      const claim = (runId: string) =>
        claimForExecute(db, {
          sessionId,
          runId,
          turnId: uuidv7(),
          instance: "i",
          now: T0,
          records: {
            messages: [{
              id: uuidv7(),
              sessionId,
              runId,
              role: "user",
              content: { plaintext: `prompt of ${runId}` },
              now: T0,
            }],
            trace: [],
            usage: [],
          },
          read: { userId, cache: mine },
        });
      const first = uuidv7();
      const claimed = await claim(first);
      assert.equal(claimed.kind, "claimed");
      assert.deepEqual(texts(claimed.kind === "claimed" ? claimed.reading! : { history: [] }), [
        "m1",
        "m2",
        "m3",
      ]);
      await append("reply", first);
      await db.query("UPDATE runs SET state = 'idle' WHERE id = $1", [first]);
      const second = await claim(uuidv7());
      const expected = ["m1", "m2", "m3", `prompt of ${first}`, "reply"];
      assert.deepEqual(
        texts(second.kind === "claimed" ? second.reading! : { history: [] }),
        expected,
      );
      // What a fresh instance reads whole is what this one put together.
      assert.deepEqual(texts(await readTurn(db, session, new HistoryCache())), [
        ...expected,
        `prompt of ${second.kind === "claimed" ? second.run.id : ""}`,
      ]);
    });

    test("an instance of the previous version reads as it did, through a rolling deploy", async () => {
      const userId = await newUser(db);
      const sessionId = await newSession(db, userId);
      await appendText(db, sessionId, "user", "m1");
      const oldForm = [[1, "user", { plaintext: "m1" }, false]];
      // Migration 006's reads, as its preview and its claim sent them.
      const [read] = await db.query<{ h: unknown }>(
        "SELECT switchyard_history($1, NULL) AS h",
        [sessionId],
      );
      assert.deepEqual(read.h, oldForm);
      const [claimed] = await db.query<{ c: { kind: string; history: unknown } }>(
        "SELECT switchyard_claim_execute($1::jsonb) AS c",
        [JSON.stringify({
          session_id: sessionId,
          run_id: uuidv7(),
          turn_id: uuidv7(),
          instance: "previous",
          now: T0.toISOString(),
          lease_until: at(30).toISOString(),
          run_input: {},
          read: { user_id: userId },
          recall_limit: 40,
        })],
      );
      assert.deepEqual([claimed.c.kind, claimed.c.history], ["claimed", oldForm]);
    });

    test("an encrypted session's history is read whole each time (its messages get sealed)", async () => {
      const userId = await newUser(db);
      const sessionId =
        (await insertSession(db, { id: uuidv7(), userId, title: "e", keyId: "k1", now: T0 })).id;
      await appendText(db, sessionId, "assistant", "router-authored");
      const cache = new HistoryCache();
      const session = { id: sessionId, user_id: userId, key_id: "k1" };
      await readTurn(db, session, cache);
      assert.equal(cache.mark(sessionId).seq, 0);
      assert.equal(await replaceMessageContent(db, sessionId, 1, { encrypted: ENVELOPE }), true);
      const reading = await readTurn(db, session, cache);
      assert.deepEqual(reading.history.map((m) => m.content), [{ encrypted: ENVELOPE }]);
    });

    test("approvals are recorded per run", async () => {
      const sessionId = await newSession(db);
      const claim = await claimForExecute(db, {
        sessionId,
        runId: uuidv7(),
        turnId: uuidv7(),
        instance: "i",
        now: T0,
      });
      const runId = claim.kind === "claimed" ? claim.run.id : "";
      const a = await recordApproval(db, {
        id: uuidv7(),
        sessionId,
        runId,
        targetType: "tool_call",
        targetId: "c1",
        decision: "approved",
        now: at(1),
      });
      assert.equal(a.reason, null);
      await recordApproval(db, {
        id: uuidv7(),
        sessionId,
        runId,
        targetType: "remote_disclosure",
        targetId: "ap1",
        decision: "rejected",
        reason: "no",
        now: at(2),
      });
      const listed = await listRunApprovals(db, runId);
      assert.deepEqual(listed.map((r) => [r.target_type, r.decision, r.reason]), [
        ["tool_call", "approved", null],
        ["remote_disclosure", "rejected", "no"],
      ]);
      await assert.rejects(recordApproval(db, {
        id: uuidv7(),
        sessionId,
        targetType: "plan",
        targetId: "p",
        decision: "maybe" as "approved",
        now: at(3),
      }));
    });

    test("sealed content is stored verbatim by reference and replaced when sealed again", async () => {
      const sessionId = await newSession(db);
      await putSealedContent(db, sessionId, {
        "message:1": ENVELOPE,
        "tool_call:c1": { ...ENVELOPE, nonce: "bg==" },
      }, T0);
      await putSealedContent(db, sessionId, {}, T0);
      await putSealedContent(
        db,
        sessionId,
        { "message:1": { ...ENVELOPE, ciphertext: "bmV3" } },
        at(1),
      );
      const got = await getSealedContent(db, sessionId, ["message:1", "tool_call:c1", "plan:x"]);
      assert.deepEqual(got, {
        "message:1": { ...ENVELOPE, ciphertext: "bmV3" },
        "tool_call:c1": { ...ENVELOPE, nonce: "bg==" },
      });
      assert.deepEqual(await getSealedContent(db, sessionId, []), {});
      assert.deepEqual(await getSealedContent(db, await newSession(db), ["message:1"]), {});
    });
  });
}
