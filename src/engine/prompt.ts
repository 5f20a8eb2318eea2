/**
 * The prompt of one model call, built only from what the context fill
 * included (decisions.md §6): excluded items (restricted, over budget,
 * duplicate, local mode deny) never reach a provider. Instructions, skills,
 * files, the git diff and recalled memory go into the system preamble;
 * included history messages, the prompt and the run's own conversation are the
 * messages.
 */
import type { ContextItem } from "../core/context_items.ts";
import { memoryPreamble } from "../core/memory_tool.ts";
import { BASE_PREAMBLE, branchLine } from "../core/service_prompt.ts";
import type { HistoryMessage, MemoryEntry } from "../core/run_items.ts";
import type { ChatMessage } from "../providers/types.ts";
import type { RunInput } from "./run_input.ts";

function section(item: ContextItem): string | null {
  switch (item.kind) {
    case "instruction":
      return `Instructions from ${item.label}:\n${item.content}`;
    case "skill":
      return `Skill '${item.label}':\n${item.content}`;
    case "file":
      return `File ${item.label}:\n${item.content}`;
    case "git diff":
      return `Git diff of the workspace:\n${item.content}`;
    default:
      return null;
  }
}

export function systemPreamble(
  included: readonly ContextItem[],
  memory: readonly MemoryEntry[],
  request: RunInput["request"],
): string {
  const parts = [BASE_PREAMBLE];
  if (request.workspace.git_branch !== null) {
    parts.push(branchLine(request.workspace.git_branch));
  }
  for (const item of included) {
    const text = section(item);
    if (text !== null) parts.push(text);
  }
  const kept = new Set(included.filter((i) => i.kind === "memory").map((i) => i.label));
  const recalled = memoryPreamble(memory.filter((m) => kept.has(`${m.scope}:${m.key}`)));
  if (recalled !== "") parts.push(recalled);
  return parts.join("\n\n");
}

/** Included history (oldest first), then the prompt, then the run's conversation. */
export function promptMessages(
  included: readonly ContextItem[],
  history: readonly HistoryMessage[],
  input: RunInput,
): ChatMessage[] {
  const labels = new Set(included.filter((i) => i.kind === "message").map((i) => i.label));
  const past: ChatMessage[] = history
    .filter((m) => labels.has(String(m.label)))
    .map((m) => ({ role: m.role === "assistant" ? "assistant" : "user", content: m.content }));
  return [...past, { role: "user", content: input.request.input.text }, ...input.conversation];
}
