/**
 * The `memory` tool, executed by the service itself (decisions.md §9):
 * `{ op: record|forget, scope: user|session, key, value? }`. Recording a key
 * replaces it. Before each model call up to 40 user and 40 session entries are
 * recalled into the system preamble (and listed as discardable context).
 */
import { fail, ok, type Outcome } from "./errors.ts";
import type { MemoryEntry } from "./run_items.ts";

export const MEMORY_SCOPES = ["user", "session"] as const;
export type MemoryScope = typeof MEMORY_SCOPES[number];

export const MEMORY_RECALL_LIMIT = 40;

export type MemoryOp =
  | { op: "record"; scope: MemoryScope; key: string; value: string }
  | { op: "forget"; scope: MemoryScope; key: string };

function invalid(message: string, path: string): Outcome<never> {
  return fail("invalid_request", `invalid memory call: ${message}`, { path });
}

/**
 * Checks a model's `memory` arguments. A bad call is a value: the service
 * answers it with an error tool result, and the model may try again.
 */
export function parseMemoryCall(args: unknown): Outcome<MemoryOp> {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return invalid("arguments must be an object", "");
  }
  const a = args as Record<string, unknown>;
  if (a.op !== "record" && a.op !== "forget") {
    return invalid(`op must be 'record' or 'forget', got ${JSON.stringify(a.op)}`, "op");
  }
  if (a.scope !== "user" && a.scope !== "session") {
    return invalid(`scope must be 'user' or 'session', got ${JSON.stringify(a.scope)}`, "scope");
  }
  if (typeof a.key !== "string" || a.key.trim() === "") {
    return invalid("key must be a non-empty string", "key");
  }
  if (a.op === "forget") return ok({ op: "forget", scope: a.scope, key: a.key });
  if (typeof a.value !== "string") return invalid("value must be a string to record", "value");
  return ok({ op: "record", scope: a.scope, key: a.key, value: a.value });
}

/**
 * The tool result the model sees. It names no key or value, so a paused run
 * can keep it even in an encrypted session.
 */
export function memoryResultText(op: MemoryOp, existed: boolean): string {
  if (op.op === "record") {
    return existed ? `replaced in ${op.scope} memory` : `recorded in ${op.scope} memory`;
  }
  return existed ? `forgotten from ${op.scope} memory` : `nothing to forget in ${op.scope} memory`;
}

/** Applies an op to a list of entries (the store does the same in SQL): a replaced key moves first. */
export function applyMemoryOp(
  entries: readonly MemoryEntry[],
  op: MemoryOp,
): { entries: MemoryEntry[]; existed: boolean } {
  const existed = entries.some((e) => e.scope === op.scope && e.key === op.key);
  const rest = entries.filter((e) => !(e.scope === op.scope && e.key === op.key));
  if (op.op === "forget") return { entries: rest, existed };
  return { entries: [{ scope: op.scope, key: op.key, value: op.value }, ...rest], existed };
}

/**
 * The entries recalled for one model call: the first 40 of each scope as the
 * store lists them (newest first), user memory before session memory.
 */
export function recalledMemory(
  user: readonly MemoryEntry[],
  session: readonly MemoryEntry[],
): MemoryEntry[] {
  return [
    ...user.filter((e) => e.scope === "user").slice(0, MEMORY_RECALL_LIMIT),
    ...session.filter((e) => e.scope === "session").slice(0, MEMORY_RECALL_LIMIT),
  ];
}

/**
 * The memory section of the system preamble, from the entries the context
 * fill kept. Keys and values are JSON-quoted so a value cannot pose as
 * another entry. No entries: no section.
 */
export function memoryPreamble(entries: readonly MemoryEntry[]): string {
  const sections: string[] = [];
  for (const [scope, title] of [["user", "User memory"], ["session", "Session memory"]] as const) {
    const lines = entries.filter((e) => e.scope === scope)
      .slice(0, MEMORY_RECALL_LIMIT)
      .map((e) => `- ${JSON.stringify(e.key)}: ${JSON.stringify(e.value)}`);
    if (lines.length > 0) sections.push(`${title}:\n${lines.join("\n")}`);
  }
  if (sections.length === 0) return "";
  return `Remembered with the memory tool:\n${sections.join("\n")}`;
}
