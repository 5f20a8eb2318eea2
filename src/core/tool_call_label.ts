/**
 * How a tool call reads to a person: its name and the argument that says what
 * it touches (`read_file README.md`, `shell npm test`), for the context item
 * of a call (decisions.md §6 `<kind> <label>`), and the arguments a plaintext
 * session's `tool_call` trace event keeps, cut to a bounded size. Pure and
 * deterministic: strings are cut by Unicode code points, keys keep the order
 * the model wrote them in, so every runtime gives the same bytes.
 */

/** Arguments that name what a call touches, tried in this order. */
const SUBJECT_KEYS = [
  "path",
  "file_path",
  "filepath",
  "filename",
  "paths",
  "command",
  "cmd",
  "url",
  "query",
  "pattern",
  "key",
  "name",
] as const;

/** The longest subject shown in a label, in code points. */
export const LABEL_SUBJECT_LIMIT = 80;
/** The longest string value a trace keeps of an argument, in code points. */
export const TRACE_STRING_LIMIT = 200;
/** The most items of one array, or keys of one object, a trace keeps. */
const TRACE_ITEMS_LIMIT = 20;
const TRACE_DEPTH_LIMIT = 4;

/** `text` cut to `limit` code points, ending in `…` when it was longer. */
export function cut(text: string, limit: number): string {
  const points = Array.from(text);
  return points.length <= limit ? text : `${points.slice(0, limit).join("")}…`;
}

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

function subject(args: Readonly<Record<string, unknown>>): string {
  for (const key of SUBJECT_KEYS) {
    const value = args[key];
    if (typeof value === "string" && value.trim() !== "") return value;
    if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === "string")) {
      return value.join(", ");
    }
  }
  return Object.keys(args).length === 0 ? "" : JSON.stringify(args);
}

/** `read_file README.md`: the tool's name, then its subject on one line, at most 80 code points. */
export function toolCallLabel(name: string, args: Readonly<Record<string, unknown>>): string {
  const about = cut(oneLine(subject(args)), LABEL_SUBJECT_LIMIT);
  return about === "" ? name : `${name} ${about}`;
}

/**
 * The arguments as a trace keeps them: strings longer than 200 code points cut
 * (ending in `…`), at most 20 items per array or object, nesting below 4 levels
 * replaced by `…`. A write's whole file body never lands in a trace row.
 */
export function traceArguments(args: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return bounded(args, 0) as Record<string, unknown>;
}

function bounded(value: unknown, depth: number): unknown {
  if (typeof value === "string") return cut(value, TRACE_STRING_LIMIT);
  if (value === null || typeof value !== "object") return value;
  if (depth >= TRACE_DEPTH_LIMIT) return "…";
  if (Array.isArray(value)) {
    return value.slice(0, TRACE_ITEMS_LIMIT).map((v) => bounded(v, depth + 1));
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value).slice(0, TRACE_ITEMS_LIMIT)) {
    out[k] = bounded(v, depth + 1);
  }
  return out;
}
