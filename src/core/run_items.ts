/**
 * Items the service owns and passes to the core beside the request: session
 * history, memory entries and the current run's tool exchanges. The client
 * never sends these (interface.md "What the service does").
 */

export interface HistoryMessage {
  /** Shown in context strings as `message <label>`, e.g. the message's sequence number. */
  label: string | number;
  role: string;
  content: string;
  /**
   * True when the message carried constrained content, or was produced from it
   * (decisions.md §6: the mark is persisted with the message).
   */
  constrained?: boolean;
}

export interface MemoryEntry {
  scope: "user" | "session";
  key: string;
  value: string;
}

/** One tool call of the current run with its result, if any yet. */
export interface ToolExchange {
  call_id: string;
  name: string;
  arguments: Record<string, unknown>;
  result?: string;
  is_error?: boolean;
  /**
   * The paths the call touches, when the caller read them from the arguments
   * itself (a compatible surface's client tools); absent, the `path` argument.
   */
  paths?: readonly string[];
}

/** The paths a tool call touches: its own `paths`, else its `path` argument. */
export function toolCallPaths(exchange: ToolExchange): readonly string[] {
  if (exchange.paths !== undefined) return exchange.paths;
  const path = toolCallPath(exchange);
  return path === null ? [] : [path];
}

/** The `path` argument of a tool call, when it has a string one. */
export function toolCallPath(exchange: ToolExchange): string | null {
  const path = exchange.arguments.path;
  return typeof path === "string" && path !== "" ? path : null;
}
