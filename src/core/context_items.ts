/**
 * Context candidates of a turn (decisions.md §6), each classified for privacy
 * and size before a model is chosen. Order matters: required items first, then
 * discardable ones in fill priority: files > git diff > history (newest first)
 * > memory > available skills. That order is also the order of the included and
 * excluded lists.
 */
import type { PathMatcher } from "./globs.ts";
import { diffHeaders, normalisePath } from "./paths.ts";
import {
  type HistoryMessage,
  type MemoryEntry,
  toolCallPaths,
  type ToolExchange,
} from "./run_items.ts";
import { toolCallLabel } from "./tool_call_label.ts";
import { estimateTokens } from "./tokens.ts";
import type { TurnRequest } from "./turn_request_types.ts";

export type ContextItemKind =
  | "instruction"
  | "skill"
  | "file"
  | "tool_call"
  | "git diff"
  | "message"
  | "memory";

export interface ContextItem {
  kind: ContextItemKind;
  /** Empty for the git diff, which is shown as just `git diff`. */
  label: string;
  content: string;
  tokens: number;
  required: boolean;
  /** Normalised workspace paths the content comes from (files, the diff, tool calls). */
  paths: string[];
  constrained: boolean;
  /** A later copy of an item already listed (same file path, skill name or memory key). */
  duplicate: boolean;
}

export interface RunItems {
  history?: readonly HistoryMessage[];
  memory?: readonly MemoryEntry[];
  tool_exchanges?: readonly ToolExchange[];
}

/** `file src/x.ts`, `git diff`, `message 12`, `tool_call read_file src/x.ts`, ... */
export function describeItem(item: ContextItem): string {
  return item.label === "" ? item.kind : `${item.kind} ${item.label}`;
}

function item(
  kind: ContextItemKind,
  label: string,
  content: string,
  fields: Partial<Pick<ContextItem, "required" | "paths" | "constrained" | "duplicate">> = {},
): ContextItem {
  return {
    kind,
    label,
    content,
    tokens: estimateTokens(content),
    required: fields.required ?? false,
    paths: fields.paths ?? [],
    constrained: fields.constrained ?? false,
    duplicate: fields.duplicate ?? false,
  };
}

/** Tool exchanges are counted as name, arguments and result, the parts a prompt carries. */
function toolContent(exchange: ToolExchange): string {
  return `${exchange.name} ${JSON.stringify(exchange.arguments)}\n${exchange.result ?? ""}`;
}

function fileItems(request: TurnRequest, constrained: PathMatcher): ContextItem[] {
  const { workspace, attachments } = request;
  const referenced = new Set(
    workspace.referenced_paths.map((p) => normalisePath(p, workspace.root)),
  );
  const normal = attachments.files.map((f) => normalisePath(f.path, workspace.root));
  // A duplicate is dropped, but makes the kept copy required if it was.
  const requiredPaths = new Set(
    normal.filter((p, i) => attachments.files[i].required || referenced.has(p)),
  );
  return attachments.files.map((f, i) => {
    const path = normal[i];
    return item("file", path, f.content, {
      required: requiredPaths.has(path),
      paths: [path],
      constrained: constrained(path),
      duplicate: normal.indexOf(path) !== i,
    });
  });
}

export function contextItems(
  request: TurnRequest,
  constrained: PathMatcher,
  run: RunItems = {},
): ContextItem[] {
  const { workspace, attachments } = request;
  const files = fileItems(request, constrained);
  const invoked = attachments.invoked_skills.map((s, i, all) =>
    item("skill", s.name, s.content, {
      required: true,
      duplicate: all.findIndex((o) => o.name === s.name) !== i,
    })
  );
  const tools = (run.tool_exchanges ?? []).map((t) => {
    const paths = toolCallPaths(t).map((p) => normalisePath(p, workspace.root));
    // Labelled by what the call did (`read_file README.md`), not by its opaque id.
    return item("tool_call", toolCallLabel(t.name, t.arguments), toolContent(t), {
      required: true,
      paths,
      constrained: paths.some(constrained),
    });
  });
  const diff: ContextItem[] = [];
  if (workspace.git_diff !== null && workspace.git_diff !== "") {
    const paths = [
      ...new Set(
        diffHeaders(workspace.git_diff).flatMap((h) => [h.old_path, h.new_path])
          .map((p) => normalisePath(p, workspace.root)),
      ),
    ];
    diff.push(
      item("git diff", "", workspace.git_diff, { paths, constrained: paths.some(constrained) }),
    );
  }
  const history = [...(run.history ?? [])].reverse().map((m) =>
    item("message", String(m.label), m.content, { constrained: m.constrained === true })
  );
  const memory = (run.memory ?? []).map((m, i, all) =>
    item("memory", `${m.scope}:${m.key}`, m.value, {
      duplicate: all.findIndex((o) => o.scope === m.scope && o.key === m.key) !== i,
    })
  );
  const invokedNames = new Set(attachments.invoked_skills.map((s) => s.name));
  const available = attachments.available_skills.map((s, i, all) =>
    item("skill", s.name, s.content, {
      duplicate: invokedNames.has(s.name) || all.findIndex((o) => o.name === s.name) !== i,
    })
  );
  return [
    ...attachments.instructions.map((ins) =>
      item("instruction", ins.source, ins.content, { required: true })
    ),
    ...invoked,
    ...files.filter((f) => f.required),
    ...tools,
    ...files.filter((f) => !f.required),
    ...diff,
    ...history,
    ...memory,
    ...available,
  ];
}

/** Prompt plus every required item that is not a duplicate. */
export function requiredTokens(items: readonly ContextItem[], promptText: string): number {
  return items.reduce(
    (sum, i) => (i.required && !i.duplicate ? sum + i.tokens : sum),
    estimateTokens(promptText),
  );
}
