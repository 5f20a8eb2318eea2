/**
 * How a tool call reads to a person: `read_file README.md`, `shell npm test`,
 * the rule the service labels a tool call's context item with (its
 * src/core/tool_call_label.ts), applied here to the arguments a plaintext
 * session's `tool_call` trace events keep.
 */

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

const SUBJECT_LIMIT = 80;

function subject(args: Readonly<Record<string, unknown>>): string {
  for (const key of SUBJECT_KEYS) {
    const value = args[key];
    if (typeof value === "string" && value.trim() !== "") return value;
    if (
      Array.isArray(value) && value.length > 0 &&
      value.every((v) => typeof v === "string")
    ) {
      return value.join(", ");
    }
  }
  return Object.keys(args).length === 0 ? "" : JSON.stringify(args);
}

/** The tool's name, then what it touches on one line (at most 80 code points, then `…`). */
export function toolCallLabel(
  name: string,
  args: Readonly<Record<string, unknown>> | null,
): string {
  const points = Array.from(subject(args ?? {}).replace(/\s+/g, " ").trim());
  const about = points.length <= SUBJECT_LIMIT
    ? points.join("")
    : `${points.slice(0, SUBJECT_LIMIT).join("")}…`;
  return about === "" ? name : `${name} ${about}`;
}
