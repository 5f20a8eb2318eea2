/**
 * `deno task cli` installs the command-line client's packages on first use,
 * and npm's output goes to stderr: stdout is the command's answer alone, so
 * `deno task cli admin users add ada > ada.key` leaves only the key in the
 * file on the very run that installs. The repository's own `cli` task runs
 * under `deno task` in a copy holding a stub client and a stand-in `npm` on
 * the PATH that writes to stdout as npm does ("added 2 packages in 1s").
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
// Under Bun, the task runner is Deno's all the same.
const DENO = process.versions.bun === undefined ? [process.execPath] : ["npx", "-y", "deno@2"];

/** Says what it was asked on stdout, as npm's summary does, and makes the two packages' folders. */
const FAKE_NPM = `#!/bin/sh
echo "$@" >> "$(dirname "$0")/npm-calls"
if [ -n "$NPM_FAILS" ]; then echo "npm error network" >&2; exit 1; fi
echo "added 2 packages in 1s"
echo "npm warn deprecated something" >&2
prefix=""
while [ $# -gt 0 ]; do
  if [ "$1" = "--prefix" ]; then prefix="$2"; fi
  shift
done
mkdir -p "$prefix/node_modules/eventsource-parser" "$prefix/node_modules/smol-toml"
`;

let root: string;
let elsewhere: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), "switchyard-cli-task-"));
  elsewhere = await mkdtemp(join(tmpdir(), "switchyard-cli-cwd-"));
  const tasks = JSON.parse(await readFile(join(REPO, "deno.json"), "utf8")).tasks;
  await writeFile(join(root, "deno.json"), JSON.stringify({ tasks: { cli: tasks.cli } }));
  await mkdir(join(root, "clients/typescript/scripts"), { recursive: true });
  await mkdir(join(root, "clients/typescript/src/cli"), { recursive: true });
  await copyFile(
    join(REPO, "clients/typescript/scripts/install_cli_deps.ts"),
    join(root, "clients/typescript/scripts/install_cli_deps.ts"),
  );
  // The client itself, stubbed: it prints its arguments and where it runs, as its answer.
  await writeFile(
    join(root, "clients/typescript/src/cli/main.ts"),
    'import process from "node:process";\n' +
      "console.log(JSON.stringify({ args: process.argv.slice(2), cwd: process.cwd() }));\n",
  );
  await mkdir(join(root, "bin"));
  await writeFile(join(root, "bin/npm"), FAKE_NPM);
  await chmod(join(root, "bin/npm"), 0o755);
});
after(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(elsewhere, { recursive: true, force: true });
});

function task(args: string[], extra: Record<string, string> = {}) {
  const env: Record<string, string | undefined> = {
    ...process.env,
    ...extra,
    PATH: `${join(root, "bin")}:${process.env.PATH}`,
  };
  // `deno task` keeps an INIT_CWD it inherits (npx sets one): the task must find its own.
  delete env.INIT_CWD;
  const child = spawn(
    DENO[0],
    [...DENO.slice(1), "task", "--quiet", "--config", join(root, "deno.json"), "cli", ...args],
    {
      cwd: elsewhere,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (c: Uint8Array) => (stdout += new TextDecoder().decode(c)));
  child.stderr!.on("data", (c: Uint8Array) => (stderr += new TextDecoder().decode(c)));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  );
}

const npmCalls = async () =>
  (await readFile(join(root, "bin/npm-calls"), "utf8").catch(() => "")).split("\n").filter(
    Boolean,
  );

describe("deno task cli", () => {
  test("a failed install stops the task with npm's error on stderr and nothing on stdout", async () => {
    const r = await task(["keys", "list"], { NPM_FAILS: "1" });
    assert.notEqual(r.code, 0);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, /npm error network/);
    assert.equal((await npmCalls()).length, 1);
  });

  test("the first run installs with npm's output on stderr; stdout is the command's alone", async () => {
    const first = await task(["admin", "users", "add", "ada"]);
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(JSON.parse(first.stdout), {
      args: ["admin", "users", "add", "ada"],
      cwd: await realCwd(),
    });
    assert.equal(first.stdout.split("\n").length, 2, `one line: ${first.stdout}`);
    assert.match(first.stderr, /added 2 packages in 1s/);
    assert.match(first.stderr, /npm warn deprecated/);
    const calls = await npmCalls();
    assert.equal(calls.length, 2);
    assert.match(calls[1], /^install --prefix \S+clients\/typescript\/ --ignore-scripts/);
    await stat(join(root, "clients/typescript/node_modules/smol-toml"));

    const second = await task(["keys", "list"]);
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual(JSON.parse(second.stdout).args, ["keys", "list"]);
    assert.equal(second.stderr, "");
    assert.equal((await npmCalls()).length, 2, "installed packages are not installed again");
  });
});

/** The directory the task was started in, as the client sees it (symlinks resolved). */
async function realCwd(): Promise<string> {
  const { realpath } = await import("node:fs/promises");
  return await realpath(elsewhere);
}
