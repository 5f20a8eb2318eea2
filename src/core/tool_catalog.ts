/**
 * The tools offered to the model (decisions.md §3), each with the permission
 * key that governs it and the JSON Schema of its arguments. `name`,
 * `description` and `parameters` match the providers' `ToolSpec`, so an
 * offered tool can be handed to an adapter as it is.
 */
import { toolMode } from "./permissions.ts";
import type { Skill, TurnRequest } from "./turn_request_types.ts";
import type { PermissionMode } from "./vocabulary.ts";

/** Who runs a call: the client on the user's machine, or the service itself. */
export type ToolExecutor = "client" | "service";

export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  /** The `tools.permissions` key that governs the tool. */
  permission: string;
  executor: ToolExecutor;
}

export interface OfferedTool extends ToolDefinition {
  mode: Exclude<PermissionMode, "deny">;
}

function schema(properties: Record<string, unknown>, required: string[]) {
  return { type: "object", properties, required, additionalProperties: false };
}

const str = (description: string) => ({ type: "string", description });

export const BUILTIN_TOOLS: readonly ToolDefinition[] = [
  {
    name: "read_file",
    description: "Read a file of the workspace.",
    parameters: schema({ path: str("File path, relative to the workspace root.") }, ["path"]),
    permission: "file_read",
    executor: "client",
  },
  {
    name: "write_file",
    description: "Create or replace a file of the workspace with the given content.",
    parameters: schema({
      path: str("File path, relative to the workspace root."),
      content: str("The file's complete new content."),
    }, ["path", "content"]),
    permission: "file_write",
    executor: "client",
  },
  {
    name: "edit_file",
    description: "Replace one exact occurrence of `old` with `new` in a workspace file.",
    parameters: schema({
      path: str("File path, relative to the workspace root."),
      old: str("Text to replace, exactly as it appears in the file."),
      new: str("Replacement text."),
    }, ["path", "old", "new"]),
    permission: "file_write",
    executor: "client",
  },
  {
    name: "shell",
    description: "Run a shell command in the workspace and return its output.",
    parameters: schema({ command: str("The command line to run.") }, ["command"]),
    permission: "shell",
    executor: "client",
  },
  {
    name: "fetch",
    description: "Fetch a URL and return the response body.",
    parameters: schema({ url: str("Absolute http(s) URL.") }, ["url"]),
    permission: "network",
    executor: "client",
  },
  {
    name: "memory",
    description:
      "Remember or forget a fact. `user` memory lasts across sessions, `session` memory lasts for this session. Recording a key replaces its value.",
    parameters: schema({
      op: { type: "string", enum: ["record", "forget"] },
      scope: { type: "string", enum: ["user", "session"] },
      key: str("Short name of the fact."),
      value: str("The fact; required to record."),
    }, ["op", "scope", "key"]),
    permission: "memory",
    executor: "service",
  },
];

/** Tools that change files: denied in plan mode (decisions.md §7). */
export const WRITE_TOOLS: readonly string[] = ["write_file", "edit_file"];

/**
 * Provider tool names are `[A-Za-z0-9_-]{1,64}`; a skill named otherwise
 * cannot be offered as a tool (it still reaches the preamble as context).
 */
export function isOfferableSkillName(name: string): boolean {
  return /^[A-Za-z0-9_-]{1,64}$/.test(name);
}

function skillTool(skill: Skill): ToolDefinition {
  return {
    name: skill.name,
    description: `Activate the skill '${skill.name}'.`,
    parameters: {
      type: "object",
      properties: { input: str("What the skill should work on, if anything.") },
      additionalProperties: true,
    },
    permission: skill.name,
    executor: "client",
  };
}

/** Built-ins, then one tool per invoked or available skill; a built-in name wins, once each. */
export function toolCatalog(request: TurnRequest): ToolDefinition[] {
  const out = [...BUILTIN_TOOLS];
  const skills = [...request.attachments.invoked_skills, ...request.attachments.available_skills];
  for (const skill of skills) {
    if (isOfferableSkillName(skill.name) && !out.some((t) => t.name === skill.name)) {
      out.push(skillTool(skill));
    }
  }
  return out;
}

/** The mode of a catalog tool: its permission's mode, `deny` for writes in plan mode. */
export function modeOfTool(
  tool: ToolDefinition,
  permissions: Readonly<Record<string, PermissionMode>>,
  planMode: boolean,
): PermissionMode {
  if (planMode && WRITE_TOOLS.includes(tool.name)) return "deny";
  return toolMode(permissions, tool.permission);
}

/** The tools to send with the model call: every catalog tool not denied. */
export function offeredTools(
  catalog: readonly ToolDefinition[],
  permissions: Readonly<Record<string, PermissionMode>>,
  planMode: boolean,
): OfferedTool[] {
  const out: OfferedTool[] = [];
  for (const tool of catalog) {
    const mode = modeOfTool(tool, permissions, planMode);
    if (mode !== "deny") out.push({ ...tool, mode });
  }
  return out;
}
