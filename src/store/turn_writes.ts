/**
 * What a turn writes, gathered as plain data and stored in one round trip
 * (DESIGN.md "Scale-out", STYLE.md 22): its messages, trace events and usage
 * events, together with the fenced run transition that ends or pauses it
 * (migration 004, `switchyard_write_turn`).
 */
import type { Queryable } from "./db.ts";
import { type NewMessage } from "./messages.ts";
import { type NewTraceEvent, traceRecord } from "./traces.ts";
import { type NewUsageEvent, usageRecord } from "./usage.ts";

export interface TurnMessage extends NewMessage {
  /** The reply of a turn: interrupted when the transition written with it did not happen. */
  interruptedUnlessMoved?: boolean;
}

export interface TurnTraceEvent extends NewTraceEvent {
  /** The event describes `messages[messageIndex]`: its payload gets that message's `seq`. */
  messageIndex?: number;
}

/** A compatible surface's conversation as answered (store/conversation_turns.ts). */
export interface ConversationRecord {
  userId: string;
  digest: string;
  sessionId: string;
  now: Date;
}

/** A stored response of the Responses API surface (store/responses.ts), by its owner. */
export interface ResponseRecord {
  id: string;
  userId: string;
  sessionId: string;
  response: Record<string, unknown>;
  inputItems: readonly Record<string, unknown>[];
  /** The response this one continues (`previous_response_id`); null: none. */
  previousId: string | null;
  now: Date;
}

/** A budgeted model call's reservation become its real cost (store/budgets.ts `settleCall`). */
export interface Settlement {
  id: string;
  userId: string;
  cost: string;
  now: Date;
}

export interface TurnRecords {
  messages: TurnMessage[];
  trace: TurnTraceEvent[];
  usage: NewUsageEvent[];
  /** Written with the turn's transition (absent: none). */
  conversations?: ConversationRecord[];
  /** Written with the turn's transition, so the call's cost and its usage event commit as one. */
  settlements?: Settlement[];
  /** Written with the turn's transition (absent: none). */
  responses?: ResponseRecord[];
}

export function noRecords(): TurnRecords {
  return {
    messages: [],
    trace: [],
    usage: [],
    conversations: [],
    settlements: [],
    responses: [],
  };
}

export function hasRecords(r: TurnRecords): boolean {
  return r.messages.length + r.trace.length + r.usage.length + (r.conversations?.length ?? 0) +
      (r.settlements?.length ?? 0) + (r.responses?.length ?? 0) > 0;
}

/** The conversation rows of turns written together; a later turn's row for a digest wins. */
export function conversationRows(records: readonly ConversationRecord[]) {
  const rows = new Map<string, Record<string, string>>();
  for (const c of records) {
    rows.set(`${c.userId} ${c.digest}`, {
      user_id: c.userId,
      digest: c.digest,
      session_id: c.sessionId,
      created_at: c.now.toISOString(),
    });
  }
  return [...rows.values()];
}

/** Beside the turn's own records: what the same statement writes to other tables. */
export interface TurnExtras {
  conversations: readonly ConversationRecord[];
  settlements: readonly Settlement[];
  responses?: readonly ResponseRecord[];
}

/**
 * The statement that writes turns: the store function of migration 004 (one
 * turn) or 009 (several), with the conversations they answered and the
 * settlements of their budgeted calls in the same statement, so in the same
 * commit.
 */
export function turnWriteStatement(one: boolean, extras: Partial<TurnExtras> = {}) {
  const call = one ? "switchyard_write_turn($1::jsonb)" : "switchyard_write_turns($1::jsonb)";
  const ctes: string[] = [];
  const params: string[] = [];
  const conversations = extras.conversations ?? [];
  if (conversations.length > 0) {
    params.push(JSON.stringify(conversationRows(conversations)));
    ctes.push(`conversations AS (
         INSERT INTO conversation_turns (user_id, digest, session_id, created_at)
         SELECT user_id, digest, session_id, created_at
         FROM jsonb_to_recordset($${params.length + 1}::jsonb)
           AS c(user_id uuid, digest text, session_id uuid, created_at timestamptz)
         ON CONFLICT (user_id, digest)
           DO UPDATE SET session_id = excluded.session_id, created_at = excluded.created_at
       )`);
  }
  const settlements = extras.settlements ?? [];
  if (settlements.length > 0) {
    params.push(JSON.stringify(settlements.map((c) => ({
      id: c.id,
      user_id: c.userId,
      amount: c.cost,
      at: c.now.toISOString(),
    }))));
    // In user order: each settlement locks its user's day in budget_days (migration 022), and
    // two instances' writes that take them in one order never wait for each other in a cycle.
    ctes.push(`settlements AS (
         INSERT INTO budget_ledger (id, user_id, spent, amount, at)
         SELECT id, user_id, true, amount, at
         FROM jsonb_to_recordset($${params.length + 1}::jsonb)
           AS c(id uuid, user_id uuid, amount numeric, at timestamptz)
         ORDER BY user_id, at
         ON CONFLICT (id) DO UPDATE SET spent = true, amount = excluded.amount, at = excluded.at
       )`);
  }
  const responses = extras.responses ?? [];
  if (responses.length > 0) {
    params.push(JSON.stringify(responses.map((r) => ({
      id: r.id,
      user_id: r.userId,
      session_id: r.sessionId,
      response: r.response,
      input_items: r.inputItems,
      previous_id: r.previousId,
      created_at: r.now.toISOString(),
    }))));
    ctes.push(`responses AS (
         INSERT INTO responses
           (id, user_id, session_id, previous_id, response, input_items, created_at)
         SELECT id, user_id, session_id, previous_id, response, input_items, created_at
         FROM jsonb_to_recordset($${params.length + 1}::jsonb)
           AS r(id text, user_id uuid, session_id uuid, previous_id text, response jsonb,
                input_items jsonb, created_at timestamptz)
         ON CONFLICT (id) DO NOTHING
       )`);
  }
  const text = ctes.length === 0 ? `SELECT ${call} AS w` : `WITH ${ctes.join(", ")}
       SELECT ${call} AS w`;
  return { text, extra: params };
}

/** A fenced transition of the run out of `running`; does nothing once the turn was superseded. */
export interface RunMove {
  runId: string;
  turnId: string;
  state: "idle" | "error" | "awaiting_client";
  /** With `awaiting_client`: what the run waits for. */
  pause?: Record<string, unknown>;
  /** What the run keeps for its next turn; left as it was when absent. */
  runInput?: Record<string, unknown>;
  now: Date;
}

function messageRecord(m: TurnMessage) {
  return {
    id: m.id,
    session_id: m.sessionId,
    run_id: m.runId ?? null,
    role: m.role,
    content: m.content,
    provider: m.provider ?? null,
    model: m.model ?? null,
    constrained: m.constrained ?? false,
    interrupted: m.interrupted ?? false,
    interrupted_unless_moved: m.interruptedUnlessMoved ?? false,
    created_at: m.now.toISOString(),
  };
}

type TraceRow = ReturnType<typeof traceRecord> & { message_index?: number; message_entry?: number };

/**
 * The trace rows of a turn's events: every run of plaintext events of one
 * session and turn is one row (a row costs the store a tuple, two index
 * entries and a log record; one per event was 40 % of what the trace cost a
 * turn's write). The row's columns are its first event's; its payload is
 * `{ plaintext: shared, each: [...] }` (`groupPayload`), where an entry of an
 * event whose columns differ carries those in `$event`. A row describes at
 * most one message: its `message_entry` is where the store sets that
 * message's `seq`. traces.ts reads the row back as the events.
 */
export function traceRows(events: readonly TurnTraceEvent[]): TraceRow[] {
  const rows: TraceRow[] = [];
  let run: TurnTraceEvent[] = [];
  for (const e of events) {
    if (run.length > 0 && !joins(run, e)) {
      rows.push(rowOf(run));
      run = [];
    }
    run.push(e);
  }
  if (run.length > 0) rows.push(rowOf(run));
  return rows;
}

/** Whether `e` can share a row with the events of `run`. */
function joins(run: readonly TurnTraceEvent[], e: TurnTraceEvent): boolean {
  const [first] = run;
  return e.sessionId === first.sessionId && e.traceId === first.traceId &&
    packable(first.payload) && packable(e.payload) &&
    (e.messageIndex === undefined || run.every((r) => r.messageIndex === undefined));
}

/** A plaintext payload none of whose fields is named like a row's own marks (`$event`, `$series`). */
const packable = (payload: Record<string, unknown>): boolean => {
  for (const key in payload) if (key !== "plaintext") return false;
  const plaintext = payload.plaintext;
  if (typeof plaintext !== "object" || plaintext === null || Array.isArray(plaintext)) {
    return false;
  }
  for (const key in plaintext) if (key.startsWith("$")) return false;
  return true;
};

function rowOf(run: readonly TurnTraceEvent[]): TraceRow {
  const [first] = run;
  const record = traceRecord(first);
  if (run.length === 1) {
    return first.messageIndex === undefined
      ? record
      : { ...record, message_index: first.messageIndex };
  }
  const payloads = run.map((e) => e.payload.plaintext as Record<string, unknown>);
  const shared = sharedFields(payloads);
  const each: Record<string, unknown>[] = [];
  let message: { index: number; entry: number } | null = null;
  // Events alike but for their payload fold as one series (seriesOf); a message's event stands alone.
  for (let i = 0; i < run.length;) {
    let end = i + 1;
    if (run[i].messageIndex === undefined) {
      while (
        end < run.length && run[end].messageIndex === undefined && sameColumns(run[i], run[end])
      ) {
        end++;
      }
    } else message = { index: run[i].messageIndex!, entry: each.length };
    const columns = columnsBesides(run[i], first);
    for (const own of seriesOf(payloads.slice(i, end), shared)) {
      each.push(columns === null ? own : { ...own, $event: columns });
    }
    i = end;
  }
  return {
    ...record,
    payload: { plaintext: shared, each },
    ...(message === null ? {} : { message_index: message.index, message_entry: message.entry }),
  };
}

/** Whether two events differ in their payload only (their row's columns, as traceRecord writes them). */
function sameColumns(a: TurnTraceEvent, b: TurnTraceEvent): boolean {
  return a.eventType === b.eventType && (a.taskType ?? null) === (b.taskType ?? null) &&
    (a.provider ?? null) === (b.provider ?? null) && (a.model ?? null) === (b.model ?? null) &&
    a.matchedRule === b.matchedRule && a.now.getTime() === b.now.getTime();
}

const COLUMNS = [
  "event_type",
  "task_type",
  "provider",
  "model",
  "matched_rule",
  "created_at",
] as const;

/** The columns of event `e`'s record that differ from those of its row's first event. */
function columnsBesides(e: TurnTraceEvent, first: TurnTraceEvent): Record<string, unknown> | null {
  if (sameColumns(e, first)) return null;
  const [own, row] = [traceRecord(e), traceRecord(first)];
  const differ: Record<string, unknown> = {};
  for (const column of COLUMNS) {
    if (JSON.stringify(own[column]) !== JSON.stringify(row[column])) differ[column] = own[column];
  }
  return differ;
}

const isScalar = (v: unknown) =>
  v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean";

/**
 * The payload of a run of events' plaintext payloads: `plaintext` holds the
 * fields every one of them has with the same scalar value, `each` the rest of
 * each, in order (`seriesOf` folds counting runs of them). Event n reads back
 * as `{ plaintext: plaintext ∪ each[n] }`.
 */
export function groupPayload(payloads: readonly Record<string, unknown>[]) {
  const shared = sharedFields(payloads);
  return { plaintext: shared, each: seriesOf(payloads, shared) };
}

/** The fields every payload has with the same scalar value. */
function sharedFields(payloads: readonly Record<string, unknown>[]): Record<string, unknown> {
  // for…in over these plain JSON objects: Object.entries made an array per field, per event.
  const [first] = payloads;
  const shared: Record<string, unknown> = {};
  for (const key in first) {
    const value = first[key];
    if (isScalar(value) && payloads.every((p) => Object.hasOwn(p, key) && p[key] === value)) {
      shared[key] = value;
    }
  }
  return shared;
}

/** What `p` adds to the fields all share. */
function ownFields(p: Record<string, unknown>, shared: Record<string, unknown>) {
  const own: Record<string, unknown> = {};
  for (const key in p) if (!Object.hasOwn(shared, key)) own[key] = p[key];
  return own;
}

/**
 * A field counting by one: its number when the value is a whole number written as text ("298"):
 * no sign, no leading zero, at most 9 digits (an `int4` in traces.ts). Read digit by digit: it
 * runs for every pair of a deep turn's hundreds of events, where a regular expression cost more
 * than the rest of the folding.
 */
function counter(value: unknown): number | null {
  if (typeof value !== "string" || value.length === 0 || value.length > 9) return null;
  if (value.length > 1 && value.charCodeAt(0) === 48) return null;
  let n = 0;
  for (let i = 0; i < value.length; i++) {
    const digit = value.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return null;
    n = n * 10 + digit;
  }
  return n;
}

/** The first of `keys` in which `b` differs from `a`, when it is a counter one up or down. */
function stepBetween(
  a: Record<string, unknown>,
  b: Record<string, unknown>,
  keys: readonly string[],
): { key: string; step: number } | null {
  for (const key of keys) {
    if (a[key] === b[key]) continue;
    const from = counter(a[key]);
    const to = counter(b[key]);
    return from !== null && to !== null && Math.abs(to - from) === 1
      ? { key, step: to - from }
      : null;
  }
  return null;
}

/**
 * Whether payload `b` is payload `a` with only its counter `key` moved by
 * `step`, where `a` has the shared fields (`size` fields in all) and `keys`
 * besides. The payloads are compared as they are: no entry is built for one
 * that joins a series.
 */
function follows(
  a: Record<string, unknown>,
  b: Record<string, unknown>,
  keys: readonly string[],
  size: number,
  step: { key: string; step: number },
): boolean {
  let fields = 0;
  for (const _ in b) fields++;
  if (fields !== size) return false;
  for (const k of keys) {
    if (!Object.hasOwn(b, k)) return false;
    if (k === step.key ? counter(b[k]) !== counter(a[k])! + step.step : a[k] !== b[k]) {
      return false;
    }
  }
  return true;
}

/** Fewer entries than this stay as they are: a series entry is no shorter. */
const SHORTEST_SERIES = 3;

/**
 * What each payload adds to `shared`, with every run of payloads alike but
 * for one counter stepping by one (the history messages a turn weighs: labels
 * "298", "297", …) folded into one entry: the others' fields, `$series` (the
 * counter's name), `$from` and `$to`. traces.ts unfolds it. A turn's
 * selection then takes a few entries at any depth, where one per message made
 * a session's trace grow with the square of its length.
 */
function seriesOf(
  payloads: readonly Record<string, unknown>[],
  shared: Record<string, unknown>,
): Record<string, unknown>[] {
  const sharedSize = Object.keys(shared).length;
  const folded: Record<string, unknown>[] = [];
  for (let i = 0; i < payloads.length;) {
    const own = ownFields(payloads[i], shared);
    const keys = Object.keys(own);
    const step = i + 1 < payloads.length && !keys.some((k) => k.startsWith("$"))
      ? stepBetween(own, payloads[i + 1], keys)
      : null;
    let last = i;
    while (
      step !== null && last + 1 < payloads.length &&
      follows(payloads[last], payloads[last + 1], keys, sharedSize + keys.length, step)
    ) last++;
    if (step === null || last + 1 - i < SHORTEST_SERIES) {
      folded.push(own);
      i++;
      continue;
    }
    const { [step.key]: from, ...rest } = own;
    folded.push({
      ...rest,
      $series: step.key,
      $from: counter(from),
      $to: counter(payloads[last][step.key]),
    });
    i = last + 1;
  }
  return folded;
}

/** The records as the store functions of migration 004 take them. */
export function recordsDocument(r: TurnRecords) {
  return {
    messages: r.messages.map(messageRecord),
    trace: traceRows(r.trace),
    usage: r.usage.map(usageRecord),
  };
}

/**
 * The sessions the records name besides their messages' (all of them when
 * there is no message): the write holds each, so none is deleted under a
 * record that names it. A turn's records are usually all of its session's.
 */
function otherSessions(r: TurnRecords): string[] {
  const own = r.messages[0]?.sessionId;
  const others = new Set<string>();
  for (const e of r.trace) if (e.sessionId !== own) others.add(e.sessionId);
  for (const e of r.usage) if (e.sessionId !== own) others.add(e.sessionId);
  return [...others];
}

/** What a turn's write is in SQL: its records and, when given, its transition. */
export function turnDocument(move: RunMove | null, records: TurnRecords) {
  return {
    ...recordsDocument(records),
    holds: otherSessions(records),
    ...(move === null ? {} : {
      move: {
        run_id: move.runId,
        turn_id: move.turnId,
        state: move.state,
        pause: move.pause ?? null,
        run_input: move.runInput ?? null,
        now: move.now.toISOString(),
      },
    }),
  };
}

export interface TurnWritten {
  /** False when the turn was superseded: its transition did not happen. */
  moved: boolean;
  /** The `seq`s of the records' messages, in order. */
  messageSeqs: number[];
}

/**
 * Writes the records and the transition atomically, in a transaction of their
 * own (the engine goes through turn_writer.ts, which shares one among turns).
 */
export async function writeTurn(
  db: Queryable,
  move: RunMove | null,
  records: TurnRecords,
): Promise<TurnWritten> {
  const statement = turnWriteStatement(true, records);
  const rows = await db.query<
    { w: { moved: boolean; message_seqs: number[] } }
  >(statement.text, [JSON.stringify(turnDocument(move, records)), ...statement.extra]);
  const w = rows[0].w;
  return { moved: w.moved, messageSeqs: w.message_seqs };
}
