import { useEffect, useRef, useState } from "preact/hooks";
import { api, describeError, type Schemas } from "../api.ts";
import { when } from "../format.ts";
import { useLoad } from "../load.ts";

type Summary = Schemas["SessionSummary"];

/** Waits until typing pauses before the filter goes to the service. */
function useSettled<T>(value: T, ms = 250): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value]);
  return settled;
}

function CreateSession({ onCreated }: { onCreated: () => void }) {
  const [title, setTitle] = useState("");
  const [scope, setScope] = useState("");
  const [error, setError] = useState("");
  const submit = async (event: Event) => {
    event.preventDefault();
    try {
      await api("post", "/api/v1/sessions", {
        body: { title, ...(scope.trim() ? { scope: scope.trim() } : {}) },
      });
      setTitle("");
      setScope("");
      setError("");
      onCreated();
    } catch (e) {
      setError(describeError(e));
    }
  };
  return (
    <details class="panel">
      <summary>New session</summary>
      <form class="row" onSubmit={submit}>
        <label>
          Title <input required value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
        </label>
        <label>
          Scope <input value={scope} onInput={(e) => setScope(e.currentTarget.value)} />
        </label>
        <button type="submit">Create</button>
        {error && <p role="alert" class="error">{error}</p>}
      </form>
    </details>
  );
}

function SessionRow(
  { s, onChanged, onDelete }: { s: Summary; onChanged: (m: string) => void; onDelete: () => void },
) {
  const [renaming, setRenaming] = useState(false);
  const [title, setTitle] = useState(s.title ?? "");
  const update = async (body: Schemas["UpdateSessionRequest"], done: string) => {
    try {
      await api("put", "/api/v1/sessions/{session_id}", { params: { session_id: s.id }, body });
      setRenaming(false);
      onChanged(done);
    } catch (e) {
      onChanged(`Could not update: ${describeError(e)}`);
    }
  };
  const name = s.title ?? "(untitled)";
  return (
    <li class={`session${s.archived ? " archived" : ""}`}>
      <div class="session-main">
        {renaming
          ? (
            <form
              class="row"
              onSubmit={(e) => {
                e.preventDefault();
                update({ title }, `Renamed to "${title}".`);
              }}
            >
              <label>
                New title for "{name}"
                <input
                  value={title}
                  required
                  ref={(el) => el?.focus()}
                  onInput={(e) => setTitle(e.currentTarget.value)}
                  onKeyDown={(e) => e.key === "Escape" && setRenaming(false)}
                />
              </label>
              <button type="submit">Save</button>
              <button type="button" class="secondary" onClick={() => setRenaming(false)}>
                Cancel
              </button>
            </form>
          )
          : s.archived
          ? <span class="title">{name}</span>
          : <a class="title" href={`#/sessions/${s.id}`}>{name}</a>}
        <span class="meta">
          {s.scope !== undefined && <span class="badge">scope {s.scope}</span>}
          {s.encrypted && <span class="badge sealed">encrypted · key {s.key_id}</span>}
          {s.archived && <span class="badge">archived</span>}
          <span>updated {when(s.updated_at)}</span>
        </span>
      </div>
      <div class="actions">
        <button type="button" class="secondary" onClick={() => setRenaming(true)}>
          Rename<span class="sr-only">{` ${name}`}</span>
        </button>
        <button
          type="button"
          class="secondary"
          onClick={() =>
            update(
              { archived: !s.archived },
              s.archived ? `Restored "${name}".` : `Archived "${name}".`,
            )}
        >
          {s.archived ? "Restore" : "Archive"}
          <span class="sr-only">{` ${name}`}</span>
        </button>
        <button type="button" class="danger" onClick={onDelete}>
          Delete<span class="sr-only">{` ${name}`}</span>
        </button>
      </div>
    </li>
  );
}

/** The caller's sessions, filtered by title and scope on the service, archived on request. */
export function SessionsPage() {
  const [title, setTitle] = useState("");
  const [scope, setScope] = useState("");
  const [showArchived, setShowArchived] = useState(false);
  const [status, setStatus] = useState("");
  const [doomed, setDoomed] = useState<Summary | null>(null);
  const dialog = useRef<HTMLDialogElement>(null);
  const query = { title: useSettled(title.trim()), scope: useSettled(scope.trim()) };
  const list = useLoad(
    () => api("get", "/api/v1/sessions", { query }),
    [query.title, query.scope],
  );
  const sessions = (list.data?.sessions ?? []).filter((s) => showArchived || !s.archived);
  const archivedCount = (list.data?.sessions ?? []).filter((s) => s.archived).length;
  useEffect(() => {
    if (doomed) dialog.current?.showModal();
    else dialog.current?.close();
  }, [doomed]);
  const changed = (message: string) => {
    setStatus(message);
    list.reload();
  };
  const remove = async () => {
    if (!doomed) return;
    try {
      await api("delete", "/api/v1/sessions/{session_id}", { params: { session_id: doomed.id } });
      changed(`Deleted "${doomed.title ?? "(untitled)"}".`);
    } catch (e) {
      setStatus(`Could not delete: ${describeError(e)}`);
    }
    setDoomed(null);
  };
  return (
    <>
      <h1>Sessions</h1>
      <form role="search" class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Title contains
          <input type="search" value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
        </label>
        <label>
          Scope (exact)
          <input type="search" value={scope} onInput={(e) => setScope(e.currentTarget.value)} />
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={showArchived}
            onChange={(e) => setShowArchived(e.currentTarget.checked)}
          />
          Show archived ({archivedCount})
        </label>
      </form>
      <CreateSession onCreated={() => changed("Session created.")} />
      <p role="status" class="status">{status}</p>
      {list.error && <p role="alert" class="error">{list.error}</p>}
      {list.loading && !list.data && <p>Loading…</p>}
      {list.data && sessions.length === 0 && <p>No sessions match.</p>}
      <ul class="sessions" aria-label="Sessions" aria-busy={list.loading}>
        {sessions.map((s) => (
          <SessionRow
            key={s.id}
            s={s}
            onChanged={changed}
            onDelete={() => setDoomed(s)}
          />
        ))}
      </ul>
      <dialog ref={dialog} onClose={() => setDoomed(null)} aria-labelledby="delete-title">
        <h2 id="delete-title">Delete "{doomed?.title ?? "(untitled)"}"?</h2>
        <p>Its messages, trace, usage and session memory are removed for good.</p>
        <div class="actions">
          <button type="button" class="danger" onClick={remove}>Delete for good</button>
          <button type="button" class="secondary" onClick={() => setDoomed(null)}>Cancel</button>
        </div>
      </dialog>
    </>
  );
}
