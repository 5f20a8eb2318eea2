/**
 * Installs the command-line client's npm packages on the first `deno task
 * cli`, with npm's output on stderr: stdout is the command's own answer, so
 * `deno task cli admin users add ada > ada.key` must leave the key alone in
 * the file even on the run that installs. (The task shell's `1>&2` does not
 * move an external program's output, so the install runs from here.) npm's
 * exit status is this script's.
 */
import { spawn } from "node:child_process";
import process from "node:process";
import { fileURLToPath } from "node:url";

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));

const child = spawn(
  "npm",
  [
    "install",
    "--prefix",
    PACKAGE_DIR,
    "--ignore-scripts",
    "--no-audit",
    "--no-fund",
    "--loglevel=error",
  ],
  // npm is npm.cmd on Windows, which only a shell starts.
  { stdio: ["ignore", "pipe", "inherit"], shell: process.platform === "win32" },
);
child.stdout!.on("data", (chunk: Uint8Array) => process.stderr.write(chunk));
child.on("error", (error) => {
  process.stderr.write(
    `switchyard: could not run npm to install the client's packages: ${error.message}\n`,
  );
  process.exitCode = 1;
});
child.on("close", (code) => {
  process.exitCode = code ?? 1;
});
