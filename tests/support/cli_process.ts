/**
 * Runs the `switchyard` command-line client from source under the runtime
 * running the test (as a person would start it), with its own config
 * directory, piped stdin and captured output.
 */
import { type ChildProcess, spawn } from "node:child_process";
import process from "node:process";
import { fileURLToPath } from "node:url";

const MAIN = fileURLToPath(new URL("../../clients/typescript/src/cli/main.ts", import.meta.url));
const onBun = process.versions.bun !== undefined;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env: Record<string, string>;
  /** Written to stdin, which is then closed. */
  input?: string;
  cwd?: string;
  /** Called with the child once it runs, e.g. to send it a signal mid-way. */
  onStdout?: (text: string, child: ChildProcess) => void;
}

export function runCli(args: string[], options: CliOptions): Promise<CliResult> {
  const argv = onBun ? [MAIN, ...args] : ["run", "--allow-all", "--quiet", MAIN, ...args];
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: "1", ...options.env };
  delete env.SWITCHYARD_API_KEY;
  const child = spawn(process.execPath, argv, {
    cwd: options.cwd,
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Uint8Array) => {
    stdout += new TextDecoder().decode(chunk);
    options.onStdout?.(stdout, child);
  });
  child.stderr!.on("data", (chunk: Uint8Array) => (stderr += new TextDecoder().decode(chunk)));
  child.stdin!.end(options.input ?? "");
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(`switchyard ${args.join(" ")} did not finish in 60 s\n${stdout}\n${stderr}`),
      );
    }, 60_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
