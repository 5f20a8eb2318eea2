/**
 * The tools a model may call, run on the user's machine (decisions.md §3):
 * `read_file`, `write_file`, `edit_file`, `shell`, `fetch`. Paths are resolved
 * against the workspace root and may not leave it; output is capped so a huge
 * file or command output cannot flood the next prompt.
 */
import { spawn } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import type { ToolOutcome } from "../run_answers.ts";
import type { PermissionMode } from "./permissions.ts";

const MAX_OUTPUT = 100_000;
const SHELL_TIMEOUT_MS = 120_000;

/** The permission key that governs each tool (decisions.md §3). */
export const TOOL_PERMISSION: Readonly<Record<string, string>> = {
  read_file: "file_read",
  write_file: "file_write",
  edit_file: "file_write",
  shell: "shell",
  fetch: "network",
};

const cap = (text: string) =>
  text.length <= MAX_OUTPUT
    ? text
    : `${text.slice(0, MAX_OUTPUT)}\n[… ${text.length - MAX_OUTPUT} more characters cut]`;

const fail = (content: string): ToolOutcome => ({ content, is_error: true });

function inside(root: string, path: unknown): string {
  if (typeof path !== "string" || path === "") throw new Error("'path' must be a non-empty string");
  const full = resolve(root, path);
  const rel = relative(root, full);
  if (rel.startsWith("..") || isAbsolute(rel)) {
    throw new Error(`'${path}' is outside the workspace ${root}`);
  }
  return full;
}

function runShell(command: string, cwd: string): Promise<ToolOutcome> {
  return new Promise((done) => {
    const child = spawn("sh", ["-c", command], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const collect = (chunk: Uint8Array) => (output += new TextDecoder().decode(chunk));
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    const timer = setTimeout(() => child.kill("SIGKILL"), SHELL_TIMEOUT_MS);
    child.on("error", (error) => (clearTimeout(timer), done(fail(`cannot run: ${error.message}`))));
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const status = signal ? `killed by ${signal}` : `exit code ${code}`;
      done({
        content: cap(`${output}${output.endsWith("\n") || output === "" ? "" : "\n"}[${status}]`),
        is_error: code !== 0,
      });
    });
  });
}

async function runTool(
  name: string,
  args: Record<string, unknown>,
  root: string,
): Promise<ToolOutcome> {
  switch (name) {
    case "read_file":
      return cap(await readFile(inside(root, args.path), "utf8"));
    case "write_file": {
      if (typeof args.content !== "string") return fail("'content' must be a string");
      const path = inside(root, args.path);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, args.content);
      return `wrote ${new TextEncoder().encode(args.content).length} bytes to ${args.path}`;
    }
    case "edit_file": {
      if (typeof args.old !== "string" || typeof args.new !== "string" || args.old === "") {
        return fail("'old' must be a non-empty string and 'new' a string");
      }
      const path = inside(root, args.path);
      const text = await readFile(path, "utf8");
      const count = text.split(args.old).length - 1;
      if (count !== 1) {
        return fail(`'old' must occur exactly once in ${args.path}; it occurs ${count} times`);
      }
      await writeFile(path, text.replace(args.old, () => args.new as string));
      return `edited ${args.path}`;
    }
    case "shell":
      if (typeof args.command !== "string" || args.command === "") {
        return fail("'command' must be a non-empty string");
      }
      return await runShell(args.command, root);
    case "fetch": {
      if (typeof args.url !== "string" || !URL.canParse(args.url)) {
        return fail("'url' must be an absolute URL");
      }
      const response = await fetch(args.url, { signal: AbortSignal.timeout(30_000) });
      return {
        content: cap(`HTTP ${response.status}\n${await response.text()}`),
        is_error: !response.ok,
      };
    }
    default:
      return fail(`tool '${name}' is not available on this client`);
  }
}

/**
 * Runs one call, refusing it when the local policy file denies its tool: the
 * service never sends denied calls, so this only guards a policy mismatch.
 */
export async function executeTool(
  name: string,
  args: Record<string, unknown>,
  root: string,
  modeOf: (permission: string) => PermissionMode,
): Promise<ToolOutcome> {
  const permission = TOOL_PERMISSION[name] ?? name;
  if (modeOf(permission) === "deny") return fail("denied by policy");
  try {
    return await runTool(name, args, root);
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
}
