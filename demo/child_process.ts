/**
 * The demo's two child processes: started under the runtime running the
 * launcher, their output written to a log file, ready once a line of their
 * output says so, stopped with SIGTERM (SIGKILL after a grace period).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { readFile } from "node:fs/promises";
import process from "node:process";

export interface Child {
  name: string;
  logFile: string;
  process: ChildProcess;
  /** Resolves with the exit code (or signal) once the process is gone. */
  exited: Promise<number | string>;
  stop(graceMs?: number): Promise<void>;
}

export interface StartOptions {
  name: string;
  args: string[];
  env: Record<string, string | undefined>;
  cwd: string;
  logFile: string;
  /** Finds the ready signal in the output so far; its result is what `start` resolves with. */
  ready: (output: string) => string | undefined;
  timeoutMs?: number;
}

/** The last lines of a log, to show when something did not start. */
export async function logTail(path: string, lines = 15): Promise<string> {
  const text = await readFile(path, "utf8").catch(() => "");
  return text.trimEnd().split("\n").slice(-lines).join("\n");
}

/**
 * Starts a child at once (so it can be stopped while it starts); `ready`
 * resolves with what `options.ready` found, or rejects if the child exits or
 * stays silent too long.
 */
export function startChild(options: StartOptions): { child: Child; ready: Promise<string> } {
  const proc = spawn(process.execPath, options.args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const log = createWriteStream(options.logFile, { flags: "a" });
  const exited = new Promise<number | string>((resolve) =>
    proc.once("exit", (code, signal) => {
      log.end();
      resolve(code ?? signal ?? "unknown");
    })
  );
  const child: Child = {
    name: options.name,
    logFile: options.logFile,
    process: proc,
    exited,
    async stop(graceMs = 15_000) {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill("SIGTERM");
      const timer = setTimeout(() => proc.kill("SIGKILL"), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
  const ready = new Promise<string>((resolve, reject) => {
    let output = "";
    let found = false;
    const timer = setTimeout(() => {
      void child.stop(0);
      reject(new Error(`${options.name} did not start within ${options.timeoutMs ?? 60_000} ms`));
    }, options.timeoutMs ?? 60_000);
    const collect = (chunk: Uint8Array) => {
      log.write(chunk);
      if (found) return; // past the ready line, output goes to the log only
      output += new TextDecoder().decode(chunk);
      const signal = options.ready(output);
      if (signal === undefined) return;
      found = true;
      output = "";
      clearTimeout(timer);
      resolve(signal);
    };
    proc.stdout!.on("data", collect);
    proc.stderr!.on("data", collect);
    void exited.then(async (code) => {
      clearTimeout(timer);
      reject(
        new Error(
          `${options.name} exited (${code}) before it was ready:\n${await logTail(
            options.logFile,
          )}`,
        ),
      );
    });
  });
  ready.catch(() => {}); // a child stopped while it starts is no error of its own
  return { child, ready };
}
