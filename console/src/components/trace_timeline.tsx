import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { modelRef, when } from "../format.ts";
import { useLoad } from "../load.ts";

const PAGE_SIZES = [10, 25, 50];

/** The raw trace, a page at a time through the endpoint's own `limit` and `offset`. */
export function TraceTimeline({ sessionId, total }: { sessionId: string; total: number | null }) {
  const [limit, setLimit] = useState(10);
  const [offset, setOffset] = useState(0);
  const page = useLoad(
    () =>
      api("get", "/api/v1/sessions/{session_id}/traces", {
        params: { session_id: sessionId },
        query: { limit, offset },
      }),
    [sessionId, limit, offset],
  );
  const events = page.data?.trace.events ?? [];
  const last = offset + events.length;
  const hasNext = total === null ? events.length === limit : last < total;
  return (
    <section class="timeline" aria-labelledby="trace-title">
      <h2 id="trace-title">Trace</h2>
      <div class="row">
        <label>
          Events per page
          <select
            value={limit}
            onChange={(e) => {
              setLimit(Number(e.currentTarget.value));
              setOffset(0);
            }}
          >
            {PAGE_SIZES.map((n) => <option key={n} value={n}>{n}</option>)}
          </select>
        </label>
        <p class="range" aria-live="polite">
          {events.length === 0
            ? "No events"
            : `Events ${offset + 1}–${last}${total === null ? "" : ` of ${total}`}`}
        </p>
      </div>
      {page.error && <p role="alert" class="error">{page.error}</p>}
      <ol class="events" start={offset + 1} aria-busy={page.loading}>
        {events.map((e, i) => (
          <li key={offset + i}>
            <div class="event-head">
              <span class={`kind kind-${e.event_type}`}>{e.event_type}</span>
              <span>{modelRef(e.provider, e.model)}</span>
              {e.task_type && <span class="muted">{e.task_type}</span>}
              {e.matched_rule !== undefined && e.matched_rule !== null && (
                <span class="muted">rule {String(e.matched_rule)}</span>
              )}
              <time dateTime={e.created_at}>{when(e.created_at)}</time>
            </div>
            {"encrypted" in e.payload
              ? (
                <p class="sealed-note">
                  payload sealed ({e.payload.encrypted.algorithm}, key {e.payload.encrypted.key_id})
                </p>
              )
              : (
                <details>
                  <summary>payload</summary>
                  <pre>{JSON.stringify(e.payload.plaintext, null, 2)}</pre>
                </details>
              )}
          </li>
        ))}
      </ol>
      <div class="pager">
        <button
          type="button"
          class="secondary"
          disabled={offset === 0}
          onClick={() => setOffset(Math.max(0, offset - limit))}
        >
          Previous events
        </button>
        <button
          type="button"
          class="secondary"
          disabled={!hasNext}
          onClick={() => setOffset(offset + limit)}
        >
          Next events
        </button>
      </div>
    </section>
  );
}
