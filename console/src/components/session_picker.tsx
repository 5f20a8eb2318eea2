import { useEffect } from "preact/hooks";
import { api } from "../api.ts";
import { useLoad } from "../load.ts";

/**
 * Picks one of the caller's open sessions; the choice lives in the location hash. With
 * `everyLabel`, no session is a choice too (`#/<section>`), named so; without, no session named
 * picks the most recently updated open one.
 */
export function SessionPicker(
  { section, sessionId, everyLabel }: { section: string; sessionId?: string; everyLabel?: string },
) {
  const list = useLoad(() => api("get", "/api/v1/sessions"), []);
  const open = (list.data?.sessions ?? []).filter((s) => !s.archived);
  useEffect(() => {
    if (everyLabel === undefined && !sessionId && open.length > 0) {
      location.replace(`#/${section}/${open[0].id}`);
    }
  }, [sessionId, open[0]?.id]);
  return (
    <label>
      Session
      <select
        value={sessionId ?? ""}
        onChange={(e) =>
          location.hash = e.currentTarget.value === ""
            ? `#/${section}`
            : `#/${section}/${e.currentTarget.value}`}
      >
        {everyLabel === undefined
          ? <option value="" disabled>Choose a session…</option>
          : <option value="">{everyLabel}</option>}
        {open.map((s) => <option key={s.id} value={s.id}>{s.title ?? s.id}</option>)}
      </select>
    </label>
  );
}
