import { useEffect } from "preact/hooks";
import { api } from "../api.ts";
import { useLoad } from "../load.ts";

/** Picks one of the caller's open sessions; the choice lives in the location hash. */
export function SessionPicker({ section, sessionId }: { section: string; sessionId?: string }) {
  const list = useLoad(() => api("get", "/api/v1/sessions"), []);
  const open = (list.data?.sessions ?? []).filter((s) => !s.archived);
  // No session named: the most recently updated open one.
  useEffect(() => {
    if (!sessionId && open.length > 0) location.replace(`#/${section}/${open[0].id}`);
  }, [sessionId, open[0]?.id]);
  return (
    <label>
      Session
      <select
        value={sessionId ?? ""}
        onChange={(e) => location.hash = `#/${section}/${e.currentTarget.value}`}
      >
        <option value="" disabled>Choose a session…</option>
        {open.map((s) => <option key={s.id} value={s.id}>{s.title ?? s.id}</option>)}
      </select>
    </label>
  );
}
