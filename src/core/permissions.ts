/**
 * Tool permissions (decisions.md §3, §5): the project's `tools.permissions`
 * tightened by the matched rule's `required_permissions`, ordered
 * allow < ask < deny. A rule may only tighten; loosening is 422
 * `permission_expansion`. A tool with no entry is `ask`.
 */
import { fail, ok, type Outcome } from "./errors.ts";
import type { Policy, RoutingRule } from "./turn_request_types.ts";
import { PERMISSION_MODES, type PermissionMode } from "./vocabulary.ts";

export const DEFAULT_TOOL_MODE: PermissionMode = "ask";

export function strictness(mode: PermissionMode): number {
  return PERMISSION_MODES.indexOf(mode);
}

export function toolMode(permissions: Readonly<Record<string, PermissionMode>>, tool: string) {
  return Object.hasOwn(permissions, tool) ? permissions[tool] : DEFAULT_TOOL_MODE;
}

export interface PermissionExpansion {
  tool: string;
  base: PermissionMode;
  requested: PermissionMode;
}

/** The first entry (in the rule's order) that loosens the project's mode, if any. */
export function findExpansion(policy: Policy, rule: RoutingRule): PermissionExpansion | null {
  const base = policy.tools.permissions;
  for (const [tool, requested] of Object.entries(rule.required_permissions?.permissions ?? {})) {
    const current = toolMode(base, tool);
    if (strictness(requested) < strictness(current)) return { tool, base: current, requested };
  }
  return null;
}

export function expansionFailure(rule: RoutingRule, e: PermissionExpansion): Outcome<never> {
  return fail(
    "permission_expansion",
    `permission expansion: rule '${rule.name}' asks for '${e.tool}' to be '${e.requested}', looser than the project's '${e.base}'`,
    { rule: rule.name, tool: e.tool, base: e.base, requested: e.requested },
  );
}

/** Effective modes of every tool named by the project or the rule. */
export function effectivePermissions(
  policy: Policy,
  rule: RoutingRule | null,
): Outcome<Record<string, PermissionMode>> {
  // A Map, then fromEntries: a tool named `__proto__` stays a plain key.
  const out = new Map(Object.entries(policy.tools.permissions));
  if (rule !== null) {
    const expansion = findExpansion(policy, rule);
    if (expansion !== null) return expansionFailure(rule, expansion);
    for (const [tool, requested] of Object.entries(rule.required_permissions?.permissions ?? {})) {
      const current = toolMode(policy.tools.permissions, tool);
      out.set(tool, strictness(requested) > strictness(current) ? requested : current);
    }
  }
  return ok(Object.fromEntries(out));
}

/** Preview's `required_permissions`: `{ permission, mode }` sorted by tool name (code units). */
export function permissionList(
  permissions: Readonly<Record<string, PermissionMode>>,
): { permission: string; mode: PermissionMode }[] {
  return Object.keys(permissions)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((permission) => ({ permission, mode: permissions[permission] }));
}
