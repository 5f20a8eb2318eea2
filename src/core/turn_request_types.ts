/**
 * The validated turn request (interface.md "Turn request body"), with every
 * default filled in. `http/turn_request.ts` produces it; core modules read it.
 */
import type { Capabilities } from "./model.ts";
import type { Effort, Intent, PermissionMode } from "./vocabulary.ts";

export interface TurnInput {
  text: string;
  /** Forces the intent for every turn of the run. */
  command: Intent | null;
  /** `provider/model`; bypasses routing. */
  explicit_model: string | null;
}

export interface Workspace {
  root: string | null;
  git_branch: string | null;
  git_diff: string | null;
  referenced_paths: string[];
  active_file: string | null;
}

export interface ClassificationRule {
  intent: Intent;
  priority: number;
  /** Absent or empty: no keyword condition. */
  keywords?: string[];
  /** Absent or empty: no context condition. */
  requires_any_context?: string[];
}

export interface Route {
  model: string;
  fallbacks: string[];
}

export interface PermissionSet {
  permissions: Record<string, PermissionMode>;
}

export interface RoutingRule {
  name: string;
  priority: number;
  effort: Effort;
  intent: Intent | null;
  paths: string[];
  local_only: boolean;
  requires_capabilities?: Capabilities;
  model: string;
  fallbacks: string[];
  required_permissions?: PermissionSet;
  /** Decimal string, per-task ceiling. */
  cost_limit?: string;
}

export interface Policy {
  version?: number;
  source?: string;
  classification: { default_intent: Intent; rules: ClassificationRule[] };
  routing: { default?: Route | null; rules: RoutingRule[] };
  tools: PermissionSet;
  privacy: {
    restricted_paths: string[];
    remote: { mode: PermissionMode; blocked_paths: string[] };
    local: { mode: PermissionMode };
  };
  /** Prompt caching (decisions.md §15); absent means `"auto"`. */
  caching?: "auto" | "off";
}

export interface LocalPreferences {
  auto_apply: boolean;
  local_only: boolean;
  no_network: boolean;
}

export interface AttachedFile {
  path: string;
  content: string;
  content_hash?: string;
  /** Required files cannot be dropped. */
  required: boolean;
}

export interface Instruction {
  source: string;
  content: string;
}

export interface Skill {
  name: string;
  content: string;
}

export interface Attachments {
  files: AttachedFile[];
  instructions: Instruction[];
  invoked_skills: Skill[];
  available_skills: Skill[];
}

export interface TurnRequest {
  input: TurnInput;
  workspace: Workspace;
  policy: Policy;
  local_preferences: LocalPreferences;
  attachments: Attachments;
}
