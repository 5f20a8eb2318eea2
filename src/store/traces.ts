/**
 * The session trace: one growing list of events, each tagged with the
 * `trace_id` of the turn that recorded it (decisions.md §7). `payload` is
 * `{ plaintext: <object> }` or `{ encrypted: <envelope> }`, stored verbatim.
 */
import type { Queryable } from "./db.ts";

export type TraceEventType =
  | "message"
  | "classification"
  | "routing_decision"
  | "context_selection"
  | "tool_call"
  | "approval"
  | "cost";

export interface TraceEventRow {
  seq: number;
  session_id: string;
  trace_id: string;
  event_type: TraceEventType;
  task_type: string | null;
  provider: string | null;
  model: string | null;
  /** SQL NULL: the event has no such field; JSON null: no rule matched. */
  matched_rule: string | number | null | undefined;
  payload: Record<string, unknown>;
  created_at: Date;
}

export interface NewTraceEvent {
  sessionId: string;
  traceId: string;
  eventType: TraceEventType;
  taskType?: string | null;
  provider?: string | null;
  model?: string | null;
  /** A rule index (classification) or name (routing); null when none matched; leave out when not applicable. */
  matchedRule?: string | number | null;
  payload: Record<string, unknown>;
  now: Date;
}

/** The row of an event as the batched inserts take it (one JSON array, in order). */
export function traceRecord(e: NewTraceEvent) {
  return {
    session_id: e.sessionId,
    trace_id: e.traceId,
    event_type: e.eventType,
    task_type: e.taskType ?? null,
    provider: e.provider ?? null,
    model: e.model ?? null,
    // Wrapped so that "null" survives as a value distinct from "absent".
    matched_rule: e.matchedRule === undefined ? null : { v: e.matchedRule },
    payload: e.payload,
    created_at: e.now.toISOString(),
  };
}

/**
 * Appends events in the given order, in one statement (a turn records several
 * at once). Their `seq` follows that order.
 */
export async function appendTraceEvents(
  db: Queryable,
  events: readonly NewTraceEvent[],
): Promise<void> {
  if (events.length === 0) return;
  await db.query(
    `INSERT INTO trace_events (session_id, trace_id, event_type, task_type, provider, model,
                               matched_rule, payload, created_at)
     SELECT switchyard_held_session((e ->> 'session_id')::uuid), (e ->> 'trace_id')::uuid,
            e ->> 'event_type',
            e ->> 'task_type', e ->> 'provider', e ->> 'model', e -> 'matched_rule' -> 'v',
            e -> 'payload', (e ->> 'created_at')::timestamptz
     FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS t (e, ord)
     ORDER BY ord`,
    [JSON.stringify(events.map(traceRecord))],
  );
}

export async function appendTraceEvent(db: Queryable, event: NewTraceEvent): Promise<void> {
  await appendTraceEvents(db, [event]);
}

/** A window of the trace, oldest first: `offset` leading events skipped, at most `limit`. */
export async function listTraceEvents(
  db: Queryable,
  sessionId: string,
  window: { limit: number; offset: number },
): Promise<TraceEventRow[]> {
  // A row of several events (turn_writes.ts, traceRows) holds each event's payload as what they
  // share plus what it adds (`each`, where an entry with `$series` stands for a run of entries
  // whose field of that name counts from `$from` to `$to`), or, as written before migration 006,
  // as an array of the payloads. An event has the row's columns but those its entry's `$event`
  // gives. Only the rows the window reaches are unfolded: every turn traces the whole history it
  // weighs, so a session's events grow with the square of its turns, and unfolding every event
  // before the offset made reading a long trace page by page take seconds. Rows are placed by
  // how many events each holds, which its entries tell without being unfolded. Ordered by the
  // qualified column: a bare `seq` would name the text output column.
  const rows = await db.query<TraceEventRow & { has_rule: boolean }>(
    `WITH placed AS (
       SELECT t.seq, sized.n, sum(sized.n) OVER (ORDER BY t.seq) - sized.n AS first
       FROM trace_events t
       CROSS JOIN LATERAL (
         SELECT greatest(1, coalesce((
                  SELECT sum(abs(coalesce((own ->> '$to')::int, 0)
                                 - coalesce((own ->> '$from')::int, 0)) + 1)
                  FROM jsonb_array_elements(t.payload -> 'each') AS own), 0)
                + CASE WHEN jsonb_typeof(t.payload) = 'array' THEN jsonb_array_length(t.payload)
                       ELSE 0 END)::int AS n
       ) AS sized
       WHERE t.session_id = $1
     ), reached AS (
       SELECT seq, first FROM placed WHERE first + n > $3 AND first < $3 + $2
     )
     SELECT t.seq::text AS seq, t.session_id, t.trace_id,
            CASE WHEN g.ev ? 'event_type' THEN g.ev ->> 'event_type' ELSE t.event_type END
              AS event_type,
            CASE WHEN g.ev ? 'task_type' THEN g.ev ->> 'task_type' ELSE t.task_type END
              AS task_type,
            CASE WHEN g.ev ? 'provider' THEN g.ev ->> 'provider' ELSE t.provider END AS provider,
            CASE WHEN g.ev ? 'model' THEN g.ev ->> 'model' ELSE t.model END AS model,
            rule.matched_rule, rule.matched_rule IS NOT NULL AS has_rule,
            coalesce(g.payload, t.payload) AS payload,
            CASE WHEN g.ev ? 'created_at' THEN (g.ev ->> 'created_at')::timestamptz
                 ELSE t.created_at END AS created_at
     FROM reached JOIN trace_events t ON t.seq = reached.seq
     LEFT JOIN LATERAL (
       SELECT jsonb_build_object('plaintext', (t.payload -> 'plaintext') || CASE
                WHEN own ? '$series' THEN (own - '$series' - '$from' - '$to' - '$event')
                  || jsonb_build_object(own ->> '$series', counted.value::text)
                ELSE own - '$event' END) AS payload, own -> '$event' AS ev, e.n, counted.i
       FROM jsonb_array_elements(t.payload -> 'each') WITH ORDINALITY AS e (own, n)
       CROSS JOIN LATERAL generate_series(
         coalesce((own ->> '$from')::int, 0), coalesce((own ->> '$to')::int, 0),
         CASE WHEN coalesce((own ->> '$to')::int, 0) < coalesce((own ->> '$from')::int, 0)
              THEN -1 ELSE 1 END
       ) WITH ORDINALITY AS counted (value, i)
       UNION ALL
       SELECT whole, NULL, n, 1
       FROM jsonb_array_elements(CASE WHEN jsonb_typeof(t.payload) = 'array' THEN t.payload END)
         WITH ORDINALITY AS a (whole, n)
     ) AS g ON true
     CROSS JOIN LATERAL (
       SELECT CASE WHEN g.ev ? 'matched_rule' THEN g.ev -> 'matched_rule' -> 'v'
                   ELSE t.matched_rule END AS matched_rule
     ) AS rule
     ORDER BY t.seq, g.n, g.i
     LIMIT $2 OFFSET (SELECT coalesce($3 - min(first), 0) FROM reached)`,
    [sessionId, window.limit, window.offset],
  );
  return rows.map(({ has_rule, ...row }) => ({
    ...row,
    seq: Number(row.seq),
    matched_rule: has_rule ? row.matched_rule ?? null : undefined,
  }));
}

/** Appends like appendTraceEvents and returns the events' `seq`s in the given order. */
export async function appendTraceEventsSeqs(
  db: Queryable,
  events: readonly NewTraceEvent[],
): Promise<number[]> {
  if (events.length === 0) return [];
  const rows = await db.query<{ seq: string }>(
    `INSERT INTO trace_events (session_id, trace_id, event_type, task_type, provider, model,
                               matched_rule, payload, created_at)
     SELECT switchyard_held_session((e ->> 'session_id')::uuid), (e ->> 'trace_id')::uuid,
            e ->> 'event_type',
            e ->> 'task_type', e ->> 'provider', e ->> 'model', e -> 'matched_rule' -> 'v',
            e -> 'payload', (e ->> 'created_at')::timestamptz
     FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS t (e, ord)
     ORDER BY ord
     RETURNING seq::text AS seq`,
    [JSON.stringify(events.map(traceRecord))],
  );
  // Identity values follow the insertion order, which follows `ord`.
  return rows.map((r) => Number(r.seq)).sort((a, b) => a - b);
}

/** Replaces an event's payload by the envelope the client sealed it into (decisions.md §8). */
export async function sealTracePayload(
  db: Queryable,
  sessionId: string,
  seq: number,
  envelope: Record<string, unknown>,
): Promise<boolean> {
  const rows = await db.query(
    `UPDATE trace_events SET payload = $3::jsonb WHERE session_id = $1 AND seq = $2 RETURNING seq`,
    [sessionId, seq, JSON.stringify({ encrypted: envelope })],
  );
  return rows.length > 0;
}
