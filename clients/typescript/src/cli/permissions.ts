import type { Policy } from "../types.ts";

export type PermissionMode = "allow" | "ask" | "deny";

/** A tool's mode under the policy's `tools.permissions`; no entry is `ask` (decisions.md §3). */
export function permissionOf(policy: Policy | undefined, permission: string): PermissionMode {
  return policy?.tools?.permissions?.[permission] ?? "ask";
}
