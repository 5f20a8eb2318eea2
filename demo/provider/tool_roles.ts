/**
 * Which offered tool does what, read from the tools' schemas rather than their
 * names, so the demo drives whichever agent calls it: Switchyard's own tools,
 * Claude Code's (`Read`, `Bash`, `Write`), Codex's (`shell` with a `command`
 * array, `exec_command` with `cmd`, `apply_patch` offered as a function with
 * one string parameter `input`). Each finder returns the first fitting tool in
 * the order offered, with a way to build its arguments.
 */

/** A tool as Chat Completions offers it. */
export interface WireTool {
  type?: string;
  function?: { name?: string; description?: string; parameters?: unknown };
}

/** A JSON Schema as tools declare them: only the parts the demo reads. */
export interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  description?: string;
  anyOf?: Schema[];
  oneOf?: Schema[];
  $ref?: string;
  $defs?: Record<string, Schema>;
  definitions?: Record<string, Schema>;
  minItems?: number;
  minimum?: number;
  minLength?: number;
  default?: unknown;
}

export interface OfferedTool {
  name: string;
  description: string;
  schema: Schema;
}

/** The function tools offered, with their schemas; other kinds are not callable. */
export function offeredTools(tools: readonly WireTool[]): OfferedTool[] {
  const out: OfferedTool[] = [];
  for (const tool of tools) {
    const fn = tool.function;
    if ((tool.type ?? "function") !== "function" || typeof fn?.name !== "string") continue;
    const schema = typeof fn.parameters === "object" && fn.parameters !== null
      ? fn.parameters as Schema
      : {};
    out.push({ name: fn.name, description: fn.description ?? "", schema });
  }
  return out;
}

const PATH_NAMES = ["path", "file_path", "filepath", "filename"];

const typesOf = (schema: Schema | undefined): string[] =>
  schema === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type ?? ""];
const isString = (schema: Schema | undefined) => typesOf(schema).includes("string");
const isStringArray = (schema: Schema | undefined) =>
  typesOf(schema).includes("array") && isString(schema?.items);

const propertiesOf = (tool: OfferedTool) => tool.schema.properties ?? {};
const requiredOf = (tool: OfferedTool) => tool.schema.required ?? [];
/** What the tool says it is, for telling apart tools of the same shape. */
const wordsOf = (tool: OfferedTool) => `${tool.name} ${tool.description}`;

/** The name of the tool's string path parameter, if it has one. */
function pathParameter(tool: OfferedTool): string | undefined {
  const properties = propertiesOf(tool);
  return PATH_NAMES.find((name) => isString(properties[name]));
}

/** Required parameters other than these, which the demo could not fill in. */
const othersRequired = (tool: OfferedTool, own: readonly string[]) =>
  requiredOf(tool).filter((name) => !own.includes(name));

/** A call: the tool's name and its arguments. */
export interface ToolUse {
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * A tool that reads a file: a string path parameter and no other required one,
 * that says it reads (Switchyard's `read_file`, Claude Code's `Read`, whose
 * description adds that it reads images too). A tool named for images (Codex's
 * `view_image`) reads a kind of file, not a file; a tool that only takes a path
 * (a directory lister, Claude Code's `EnterWorktree`) is not a reader.
 */
export function readTool(tools: readonly OfferedTool[]) {
  const fits = tools.filter((tool) => {
    const path = pathParameter(tool);
    return path !== undefined && othersRequired(tool, [path]).length === 0 &&
      !/image/i.test(tool.name);
  });
  // Its name says so first (`Read`), else its description ("Reads a file ...").
  const tool = fits.find((t) => /read/i.test(t.name)) ??
    fits.find((t) => /\bread(s|ing)?\b/i.test(t.description));
  if (tool === undefined) return undefined;
  const path = pathParameter(tool)!;
  return (file: string): ToolUse => ({ name: tool.name, arguments: { [path]: file } });
}

/** The path arguments of a call, as `readTool` and the other tools name them. */
export function pathArguments(args: Record<string, unknown>): string[] {
  return PATH_NAMES.map((name) => args[name]).filter((v): v is string => typeof v === "string");
}

/**
 * A tool that runs a command: a `command` parameter that is a string
 * (Switchyard's `shell`, Claude Code's `Bash`) or an array of strings, the
 * program and its arguments (Codex's `shell`), or a string `cmd` (Codex's
 * `exec_command`); no other required parameter.
 */
export function commandTool(tools: readonly OfferedTool[]) {
  for (const tool of tools) {
    const properties = propertiesOf(tool);
    for (const name of ["command", "cmd"]) {
      const parameter = properties[name];
      if (othersRequired(tool, [name]).length > 0) continue;
      if (isString(parameter)) {
        return (command: string): ToolUse => ({ name: tool.name, arguments: { [name]: command } });
      }
      if (name === "command" && isStringArray(parameter)) {
        return (command: string): ToolUse => ({
          name: tool.name,
          arguments: { [name]: ["bash", "-lc", command] },
        });
      }
    }
  }
  return undefined;
}

/** A patch adding one file, in the format Codex's `apply_patch` takes. */
export function addFilePatch(path: string, content: string): string {
  const lines = content.replace(/\n$/, "").split("\n").map((line) => `+${line}`);
  return ["*** Begin Patch", `*** Add File: ${path}`, ...lines, "*** End Patch", ""].join("\n");
}

/**
 * A tool that writes a file: Codex's `apply_patch` (a freeform tool, offered
 * as a function whose one parameter is the string `input`, saying it patches),
 * else a tool taking a path and the file's `content` (Switchyard's
 * `write_file`, Claude Code's `Write`).
 */
export function writeTool(tools: readonly OfferedTool[]) {
  const patch = tools.find((tool) => {
    const names = Object.keys(propertiesOf(tool));
    return names.length === 1 && names[0] === "input" && isString(propertiesOf(tool).input) &&
      /patch/i.test(wordsOf(tool));
  });
  if (patch !== undefined) {
    return (path: string, content: string): ToolUse => ({
      name: patch.name,
      arguments: { input: addFilePatch(path, content) },
    });
  }
  for (const tool of tools) {
    const path = pathParameter(tool);
    if (path === undefined || !isString(propertiesOf(tool).content)) continue;
    if (othersRequired(tool, [path, "content"]).length > 0) continue;
    return (file: string, content: string): ToolUse => ({
      name: tool.name,
      arguments: { [path]: file, content },
    });
  }
  return undefined;
}

/** A tool that records a note: Switchyard's `memory` (`op` recording a `key` and `value`). */
export function noteTool(tools: readonly OfferedTool[]) {
  const tool = tools.find((t) => {
    const properties = propertiesOf(t);
    return Array.isArray(properties.op?.enum) && properties.op.enum.includes("record") &&
      isString(properties.key) && isString(properties.value);
  });
  if (tool === undefined) return undefined;
  const scopes = propertiesOf(tool).scope?.enum;
  return (value: string): ToolUse => ({
    name: tool.name,
    arguments: {
      op: "record",
      ...(Array.isArray(scopes) ? { scope: scopes.includes("user") ? "user" : scopes[0] } : {}),
      key: "demo-note",
      value,
    },
  });
}
