/**
 * Constrained paths (decisions.md §6, interface.md "Privacy and locality
 * rules"): the union of `privacy.restricted_paths`, `privacy.remote.blocked_paths`
 * and the `paths` of every `local_only` routing rule. The first two are privacy
 * globs and fail closed; rule paths are routing globs, validated with the request.
 */
import { type PathMatcher, privacyMatcher, routingMatcher } from "./globs.ts";
import type { Policy } from "./turn_request_types.ts";
import type { PermissionMode } from "./vocabulary.ts";

export function constrainedPathMatcher(policy: Policy): PathMatcher {
  const privacy = privacyMatcher([
    ...policy.privacy.restricted_paths,
    ...policy.privacy.remote.blocked_paths,
  ]);
  const rules = routingMatcher(
    policy.routing.rules.filter((r) => r.local_only).flatMap((r) => r.paths),
  );
  return (path) => privacy(path) || rules(path);
}

/** What a privacy mode does to content from workspace paths for one locality of model. */
export function disclosureMode(policy: Policy, modelIsLocal: boolean): PermissionMode {
  return modelIsLocal ? policy.privacy.local.mode : policy.privacy.remote.mode;
}

/**
 * The workspace paths whose content would need a `remote_disclosure` approval
 * before it is sent (decisions.md §6): only when the mode for the model's
 * locality is `ask`, only paths of content actually going into the prompt
 * (attachment files, the git diff, path-bearing tool results), minus the paths
 * already approved in this run. The user's own prompt and history never ask.
 * Pausing is the run engine's decision; this only says for which paths.
 */
export function pathsNeedingApproval(
  policy: Policy,
  modelIsLocal: boolean,
  includedWorkspacePaths: readonly string[],
  approvedPaths: ReadonlySet<string> = new Set(),
): string[] {
  if (disclosureMode(policy, modelIsLocal) !== "ask") return [];
  const out: string[] = [];
  for (const path of includedWorkspacePaths) {
    if (!approvedPaths.has(path) && !out.includes(path)) out.push(path);
  }
  return out;
}
