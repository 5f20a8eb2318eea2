/**
 * The relevant paths of a turn (decisions.md §5), normalised, in the order
 * routing considers them, duplicates dropped.
 */
import { diffHeaders, normalisePath } from "./paths.ts";
import { toolCallPaths, type ToolExchange } from "./run_items.ts";
import type { TurnRequest } from "./turn_request_types.ts";

/**
 * `referenced_paths`, `active_file`, the `b/` paths of `diff --git` headers,
 * attachment file paths, then the `path` arguments of the current run's tool
 * calls, so a later turn of a run can route differently.
 */
export function relevantPaths(
  request: TurnRequest,
  toolExchanges: readonly ToolExchange[] = [],
  /** Paths of earlier tool calls of a conversation a compatible surface sent. */
  conversationPaths: readonly string[] = [],
): string[] {
  const { workspace, attachments } = request;
  const raw: string[] = [
    ...workspace.referenced_paths,
    ...(workspace.active_file === null ? [] : [workspace.active_file]),
    ...diffHeaders(workspace.git_diff).map((h) => h.new_path),
    ...attachments.files.map((f) => f.path),
    ...toolExchanges.flatMap(toolCallPaths),
    ...conversationPaths,
  ];
  const seen = new Set<string>();
  const out: string[] = [];
  for (const path of raw) {
    const normal = normalisePath(path, workspace.root);
    if (normal === "" || seen.has(normal)) continue;
    seen.add(normal);
    out.push(normal);
  }
  return out;
}
