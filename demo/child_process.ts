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

export function startChild(options: StartOptions): Promise<{ child: Child; signal: string }> {
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
  return new Promise((resolve, reject) => {
    let output = "";
    let ready = false;
    const timer = setTimeout(() => {
      void child.stop(0);
      reject(new Error(`${options.name} did not start within ${options.timeoutMs ?? 60_000} ms`));
    }, options.timeoutMs ?? 60_000);
    const collect = (chunk: Uint8Array) => {
      log.write(chunk);
      if (ready) return; // past the ready line, output goes to the log only
      output += new TextDecoder().decode(chunk);
      const signal = options.ready(output);
      if (signal === undefined) return;
      ready = true;
      output = "";
      clearTimeout(timer);
      resolve({ child, signal });
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
}
