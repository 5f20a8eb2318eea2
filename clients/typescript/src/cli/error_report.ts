/**
 * What a failed command tells the person at the keyboard: the code to match on
 * and the message, then whatever the answer's `details` explain (the
 * candidates skipped and why, the fallback hops, the field at fault and the
 * other issues found, when to retry), one fact per line. `--json` gives the
 * error envelope itself, for scripts.
 */
import { SwitchyardError } from "../errors.ts";
import { printable } from "./printable.ts";

type Details = Record<string, unknown>;

const isRecord = (v: unknown): v is Details =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const text = (v: unknown) => typeof v === "string" ? v : JSON.stringify(v);
const list = (v: unknown): Details[] => Array.isArray(v) ? v.filter(isRecord) : [];

/** Lines for the details a person acts on; `shown` collects the keys they cover. */
function knownLines(d: Details, shown: Set<string>): string[] {
  const lines: string[] = [];
  const take = (key: string) => (shown.add(key), d[key]);
  if (typeof d.path === "string") lines.push(`at:          ${take("path")}`);
  const issues = list(d.issues);
  if (issues.length > 0) shown.add("issues");
  // The first issue is the message itself; the others are news.
  if (issues.length > 1) {
    lines.push("also:");
    for (const issue of issues.slice(1)) {
      lines.push(`  ${text(issue.path)}: ${text(issue.message)}`);
    }
  }
  const localRequired = take("local_required");
  if (Array.isArray(localRequired) && localRequired.length > 0) {
    lines.push(
      `must stay local because: ${localRequired.map(text).join("; ")}`,
    );
  }
  if (typeof d.required_tokens === "number") {
    lines.push(`needs:       ${take("required_tokens")} tokens and a reply`);
  }
  const skipped = list(take("skipped"));
  if (skipped.length > 0) {
    lines.push("skipped:");
    for (const s of skipped) {
      lines.push(`  ${text(s.model)}: ${text(s.reason)}`);
    }
  }
  const hops = list(take("hops"));
  if (hops.length > 0) {
    lines.push("tried, in order:");
    hops.forEach((h, i) => {
      const code = typeof h.code === "string" ? ` (${h.code})` : "";
      lines.push(
        `  ${i + 1}. ${text(h.provider)}/${text(h.model)}${code}: ${text(h.reason)}`,
      );
    });
  }
  // Read back from the trace when a streamed turn failed (see turn_failure.ts).
  const fallbacks = list(take("fallbacks"));
  if (fallbacks.length > 0) {
    lines.push("tried, in order:");
    fallbacks.forEach((f, i) => lines.push(`  ${i + 1}. ${text(f.model)}: ${text(f.why)}`));
  }
  for (const key of ["missing", "extra", "repeated"]) {
    const ids = take(key);
    if (Array.isArray(ids) && ids.length > 0) {
      lines.push(`${`${key}:`.padEnd(12)} ${ids.join(", ")}`);
    }
  }
  return lines;
}

/** The retry hint: the header when the answer had one, else the envelope's own figure. */
function retryLine(error: SwitchyardError, shown: Set<string>): string[] {
  shown.add("retry_after_seconds");
  const seconds = error.retryAfterSeconds ?? error.details?.retry_after_seconds;
  return typeof seconds === "number" ? [`retry after: ${seconds} s`] : [];
}

/** Several lines for a person, ending in a newline. */
export function errorReport(error: unknown): string {
  if (!(error instanceof SwitchyardError)) {
    return `error: ${error instanceof Error ? error.message : String(error)}\n`;
  }
  const shown = new Set<string>();
  const details = error.details ?? {};
  const lines = [
    // The service's message may quote what it was sent; shown escaped, it cannot drive the terminal.
    `error: ${error.code}: ${printable(error.message)}`,
    ...knownLines(details, shown),
    ...retryLine(error, shown),
  ];
  // Anything else the service chose to say is shown as it came (details never hold secrets).
  for (const [key, value] of Object.entries(details)) {
    if (!shown.has(key) && value !== undefined) {
      lines.push(`${`${key}:`.padEnd(12)} ${text(value)}`);
    }
  }
  return `${lines.join("\n  ")}\n`;
}

/** The error envelope as the service sent it (or as the client made it), one JSON document. */
export function errorJson(error: unknown): string {
  if (!(error instanceof SwitchyardError)) {
    return `${
      JSON.stringify({
        error: {
          message: error instanceof Error ? error.message : String(error),
        },
      })
    }\n`;
  }
  const body: Details = { code: error.code, message: error.message };
  if (error.details !== undefined) body.details = error.details;
  if (error.status !== 0) body.status = error.status;
  if (error.retryAfterSeconds !== undefined) {
    body.retry_after_seconds = error.retryAfterSeconds;
  }
  return `${JSON.stringify({ error: body }, null, 2)}\n`;
}
