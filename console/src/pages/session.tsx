import { useEffect, useState } from "preact/hooks";
import { api, describeError, type Schemas } from "../api.ts";
import { TurnCard } from "../components/decision_card.tsx";
import { TraceTimeline } from "../components/trace_timeline.tsx";
import {
  callPerTurn,
  sessionTurns,
  type Turn,
  turnsAtMessages,
} from "../../../clients/typescript/src/turns.ts";
import { modelRef } from "../format.ts";
import { useLoad } from "../load.ts";
import { importKey, openEnvelope } from "../sealed.ts";

type TraceEvent = Schemas["TraceEvent"];
type Message = Schemas["SessionMessage"];

const WHOLE_TRACE_PAGE = 500;

/** Every event of the session's trace, read a page at a time. */
async function wholeTrace(sessionId: string): Promise<TraceEvent[]> {
  const events: TraceEvent[] = [];
  for (;;) {
    const page = await api("get", "/api/v1/sessions/{session_id}/traces", {
      params: { session_id: sessionId },
      query: { limit: WHOLE_TRACE_PAGE, offset: events.length },
    });
    events.push(...page.trace.events);
    if (page.trace.events.length < WHOLE_TRACE_PAGE) return events;
  }
}

/** Opened plaintexts of sealed message bodies (by index) and trace payloads (by position). */
interface Opened {
  messages: Map<number, string>;
  events: TraceEvent[];
}

async function openAll(key: CryptoKey, messages: Message[], events: TraceEvent[]) {
  const opened: Opened = { messages: new Map(), events: [] };
  for (const [i, m] of messages.entries()) {
    if ("encrypted" in m.content) {
      const text = await openEnvelope(key, m.content.encrypted);
      if (text !== null) opened.messages.set(i, text);
    }
  }
  for (const e of events) {
    if (!("encrypted" in e.payload)) {
      opened.events.push(e);
      continue;
    }
    const text = await openEnvelope(key, e.payload.encrypted);
    let plaintext: unknown = null;
    try {
      plaintext = text === null ? null : JSON.parse(text);
    } catch { /* not JSON: keep it sealed */ }
    opened.events.push(
      plaintext && typeof plaintext === "object"
        ? { ...e, payload: { plaintext: { ...plaintext, type: e.event_type } } }
        : e,
    );
  }
  return opened;
}

function OpenSealed({ onKey }: { onKey: (key: CryptoKey) => Promise<number> }) {
  const [text, setText] = useState("");
  const [status, setStatus] = useState("");
  const submit = async (event: Event) => {
    event.preventDefault();
    try {
      const opened = await onKey(await importKey(text));
      setStatus(`Opened ${opened} sealed item${opened === 1 ? "" : "s"} in this page only.`);
    } catch (e) {
      setStatus(`Could not open: ${describeError(e)}`);
    }
    setText("");
  };
  return (
    <form class="row panel" onSubmit={submit}>
      <label>
        Session key (base64, AES-256-GCM)
        <input
          type="password"
          autocomplete="off"
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
        />
      </label>
      <button type="submit">Open here</button>
      <p role="status" class="hint">
        {status || "The key stays in this page's memory; nothing is sent to the service."}
      </p>
    </form>
  );
}

function MessageItem(
  { m, opened, turn, total }: { m: Message; opened?: string; turn?: Turn; total: number },
) {
  const sealed = "encrypted" in m.content ? m.content.encrypted : null;
  return (
    <li class={`message ${m.role}`}>
      <div class="who">
        {m.role}
        {m.provider && <span class="model-label">{modelRef(m.provider, m.model ?? null)}</span>}
      </div>
      {"plaintext" in m.content
        ? <div class="text">{m.content.plaintext}</div>
        : opened !== undefined
        ? <div class="text">{opened}</div>
        : (
          <div class="sealed-note">
            Sealed ({sealed?.algorithm}, key {sealed?.key_id}): the service cannot read it.
          </div>
        )}
      {turn && <TurnCard turn={turn} total={total} />}
    </li>
  );
}

/** One session: its messages with the turn behind each (its model and tool calls), the raw trace beside. */
export function SessionPage({ sessionId }: { sessionId: string }) {
  const detail = useLoad(
    () => api("get", "/api/v1/sessions/{session_id}", { params: { session_id: sessionId } }),
    [sessionId],
  );
  const trace = useLoad(() => wholeTrace(sessionId), [sessionId]);
  const [opened, setOpened] = useState<Opened | null>(null);
  useEffect(() => setOpened(null), [sessionId]);
  const session = detail.data?.session;
  const events = opened?.events ?? trace.data ?? [];
  // A turn is a prompt and every model call and tool call that answered it; a compatible-API
  // request is a turn of its own. Each shows under its last message.
  const turns = sessionTurns(events, { callPerTurn: callPerTurn(session) });
  const turnAt = turnsAtMessages(turns, session?.messages.map((m) => m.role) ?? []);
  const shown = new Set(turnAt.values());
  const unplaced = turns.filter((t) => !shown.has(t));
  return (
    <>
      <p>
        <a href="#/sessions">← Sessions</a>
      </p>
      {detail.error && <p role="alert" class="error">{detail.error}</p>}
      {session && (
        <>
          <h1>{session.title ?? "(untitled)"}</h1>
          <p class="meta">
            {session.key_id !== undefined && (
              <span class="badge sealed">encrypted · key {session.key_id}</span>
            )}
            <a href={`#/usage/${sessionId}`}>Usage</a> ·{" "}
            <a href={`#/preview/${sessionId}`}>Preview a turn</a>
          </p>
          {session.key_id !== undefined && (
            <OpenSealed
              onKey={async (key) => {
                const result = await openAll(key, session.messages, trace.data ?? []);
                setOpened(result);
                const events = result.events.filter((e, i) =>
                  "plaintext" in e.payload && "encrypted" in (trace.data?.[i]?.payload ?? {})
                );
                return result.messages.size + events.length;
              }}
            />
          )}
          <div class="session-layout">
            <section aria-labelledby="messages-title">
              <h2 id="messages-title">Messages</h2>
              {session.messages.length === 0 && <p>No messages yet.</p>}
              <ol class="messages">
                {session.messages.map((m, i) => (
                  <MessageItem
                    key={i}
                    m={m}
                    opened={opened?.messages.get(i)}
                    turn={turnAt.get(i)}
                    total={turns.length}
                  />
                ))}
              </ol>
              {unplaced.length > 0 && (
                <>
                  <h2>Turns without a message</h2>
                  {unplaced.map((t) => <TurnCard key={t.number} turn={t} total={turns.length} />)}
                </>
              )}
            </section>
            <TraceTimeline sessionId={sessionId} total={trace.data?.length ?? null} />
          </div>
        </>
      )}
    </>
  );
}
