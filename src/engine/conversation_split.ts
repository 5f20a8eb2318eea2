/**
 * A conversation a compatible surface sent, split as a turn weighs it
 * (decisions.md §12): the last user message is the prompt; what follows it
 * (the model's tool calls and their results) is the turn's own tool exchange,
 * required; what precedes it is history, trimmed oldest first. An assistant
 * message and the results of its tool calls form one unit, so trimming never
 * separates a call from its result. Pure: plain data in and out.
 */
import type { PathMatcher } from "../core/globs.ts";
import { normalisePath } from "../core/paths.ts";
import type { HistoryMessage, ToolExchange } from "../core/run_items.ts";
import type { ChatMessage, ToolCall, UserMessage } from "../providers/types.ts";

/** Arguments whose string values are paths, as a workspace path would be (decisions.md §12). */
const PATH_ARGUMENTS = ["path", "file_path", "filepath", "filename"] as const;

export function argumentPaths(args: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const key of PATH_ARGUMENTS) {
    const value = args[key];
    if (typeof value === "string" && value !== "") out.push(value);
  }
  if (Array.isArray(args.paths)) {
    for (const p of args.paths) if (typeof p === "string" && p !== "") out.push(p);
  }
  return out;
}

export interface ConversationSplit {
  /** History units, oldest first; `history[i].label` is the unit's first message's position (1-based). */
  history: HistoryMessage[];
  units: ChatMessage[][];
  prompt: UserMessage;
  /** What followed the prompt: the tool exchange the model is answering. */
  tail: ChatMessage[];
  exchanges: ToolExchange[];
  /** Paths of the history's tool calls: relevant to routing and privacy like any other. */
  conversationPaths: string[];
}

function callsOf(m: ChatMessage): readonly ToolCall[] {
  return m.role === "assistant" ? m.toolCalls ?? [] : [];
}

/** What a unit weighs in tokens: its text, its calls and their results. */
function unitContent(unit: readonly ChatMessage[]): string {
  return unit.map((m) =>
    m.role === "assistant"
      ? [m.content, ...callsOf(m).map((c) => `${c.name} ${JSON.stringify(c.arguments)}`)].join("\n")
      : m.content
  ).join("\n");
}

/** Groups messages into units: a user message alone; an assistant message with the results after it. */
function unitsOf(messages: readonly ChatMessage[]): ChatMessage[][] {
  const units: ChatMessage[][] = [];
  for (const m of messages) {
    const last = units.at(-1);
    if (m.role === "tool" && last !== undefined && last[0].role !== "user") last.push(m);
    else units.push([m]);
  }
  return units;
}

/** Null when the conversation has no user message to answer. */
export function splitConversation(
  messages: readonly ChatMessage[],
  constrained: PathMatcher,
  root: string | null = null,
): ConversationSplit | null {
  const at = messages.findLastIndex((m) => m.role === "user");
  if (at < 0) return null;
  const before = unitsOf(messages.slice(0, at));
  const tail = messages.slice(at + 1);
  const conversationPaths: string[] = [];
  const history: HistoryMessage[] = [];
  // Replies that followed constrained content were produced from it (decisions.md §6).
  let tainted = false;
  let position = 1;
  for (const unit of before) {
    const paths = unit.flatMap(callsOf).flatMap((c) => argumentPaths(c.arguments));
    conversationPaths.push(...paths);
    const touches = paths.some((p) => constrained(normalisePath(p, root)));
    history.push({
      label: position,
      role: unit[0].role === "user" ? "user" : "assistant",
      content: unitContent(unit),
      constrained: touches || (tainted && unit[0].role === "assistant"),
    });
    tainted ||= touches;
    position += unit.length;
  }
  const results = new Map<string, { content: string; isError: boolean }>();
  for (const m of tail) if (m.role === "tool") results.set(m.callId, m);
  const exchanges: ToolExchange[] = tail.flatMap(callsOf).map((call) => {
    const result = results.get(call.callId);
    return {
      call_id: call.callId,
      name: call.name,
      arguments: call.arguments,
      paths: argumentPaths(call.arguments),
      ...(result === undefined ? {} : { result: result.content, is_error: result.isError }),
    };
  });
  return {
    history,
    units: before,
    prompt: messages[at] as UserMessage,
    tail,
    exchanges,
    conversationPaths,
  };
}

/** The messages a model call carries: the included history units in order, the prompt, the tail. */
export function assembleConversation(
  split: ConversationSplit,
  includedLabels: ReadonlySet<string>,
): ChatMessage[] {
  const kept = split.units.filter((_, i) => includedLabels.has(String(split.history[i].label)));
  return [...kept.flat(), split.prompt, ...split.tail];
}
