/**
 * The Codex CLI (`@openai/codex` from npm, the binary its package ships)
 * through Switchyard, as a newcomer runs it: the demo started with no provider
 * key, then the `codex exec` line it prints, with the CODEX_HOME it wrote, in a
 * scratch project folder. Codex speaks only the Responses API to a custom
 * provider; the demo model finds Codex's command tool by its schema, Codex runs
 * `ls` in the folder and sends the output back, the demo model says what came
 * back, and Codex exits 0. The service recorded every model call of that run in
 * one session, and `switchyard why` explains each of its turns. Then the same
 * line again and two `codex exec resume` runs: each lands in the session its
 * conversation id names (Codex sends it as `prompt_cache_key`).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, describe, test } from "node:test";
import { CODEX_PROMPT } from "../../demo/codex_config.ts";
import {
  keylessEnv,
  launchDemo,
  ROOT,
  runCli,
  signalDemo,
  stopRunningDemos,
} from "../support/demo_launch.ts";

/** The npm package's launcher, which runs the platform binary shipped beside it. */
const CODEX_JS = join(ROOT, "tests/node_modules/@openai/codex/bin/codex.js");
const onBun = process.versions.bun !== undefined;

/** `codex <args>` in `cwd`; stdin closed, as in a script (an open pipe would be read as input). */
function codex(
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const argv = onBun ? [CODEX_JS, ...args] : ["run", "--allow-all", CODEX_JS, ...args];
  const child = spawn(process.execPath, argv, {
    cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on(
    "data",
    (c: Uint8Array) => (stdout += new TextDecoder().decode(c)),
  );
  child.stderr!.on(
    "data",
    (c: Uint8Array) => (stderr += new TextDecoder().decode(c)),
  );
  const timer = setTimeout(() => child.kill("SIGKILL"), 150_000);
  return new Promise((resolve) =>
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    })
  );
}

const dirs: string[] = [];
after(async () => {
  await stopRunningDemos();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe("Codex through the demo", () => {
  test("codex exec with the printed provider block runs a shell command, exits 0, why explains its turns, and later runs land in their conversations' sessions", async () => {
    const dir = await mkdtemp(join(tmpdir(), "switchyard-codex-"));
    const project = await mkdtemp(join(tmpdir(), "switchyard-codex-project-"));
    const configHome = await mkdtemp(join(tmpdir(), "switchyard-codex-cli-"));
    dirs.push(dir, project, configHome);
    await writeFile(join(project, "hello.txt"), "hello\n");
    await writeFile(join(project, "notes.md"), "# Notes\n");

    const demo = await launchDemo(dir);
    try {
      const url = demo.find(/console\s+(http:\/\/\S+)\/console/);
      const apiKey = demo.find(/API key\s+(sk-router-api01-\S+)/);
      const token = demo.find(/Bearer (\S+)'/);
      const demoSession = demo.find(/ why ([0-9a-f-]{36})/);

      // The printed line, as a shell splits it: CODEX_HOME=<dir> codex exec ... '<prompt>'.
      const line = demo.find(/^ {2}(CODEX_HOME=.*codex exec.*)$/m);
      const [assignment, program, ...args] = [
        ...line.matchAll(/'([^']*)'|(\S+)/g),
      ].map((m) => m[1] ?? m[2]);
      assert.equal(program, "codex");
      assert.equal(args.at(-1), CODEX_PROMPT);
      const codexHome = assignment.slice("CODEX_HOME=".length);

      // SWITCHYARD_API_KEY as the banner exports it; nothing else of ours in the environment.
      const run = await codex(
        args,
        project,
        keylessEnv({ CODEX_HOME: codexHome, SWITCHYARD_API_KEY: apiKey }),
      );
      const transcript = `exit ${run.code}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
      assert.equal(run.code, 0, transcript);
      // Codex ran the command the demo model asked for, in the project folder...
      assert.match(
        run.stderr,
        /\bls\b.* in .*switchyard-codex-project-/,
        transcript,
      );
      assert.match(run.stderr, /hello\.txt\s+notes\.md/, transcript);
      // ...sent its output back, and the model's last answer (on stdout) says what came back.
      assert.match(
        run.stdout,
        /I called (exec_command|shell|shell_command) and got \d+ lines? back/,
        transcript,
      );
      assert.match(
        run.stdout,
        /answered by demo-mini \(Demo Mini\)/,
        transcript,
      );

      // Every model call of the run is in one session of the demo user (Codex's conversation key).
      const headers = { authorization: `Bearer ${token}` };
      const listed = await (await fetch(`${url}/api/v1/sessions`, { headers }))
        .json();
      const sessions = listed.sessions.filter((s: { id: string }) => s.id !== demoSession);
      assert.equal(sessions.length, 1, JSON.stringify(listed.sessions));
      const session = sessions[0].id as string;
      const readSession = async (id: string, path = "") =>
        JSON.stringify(
          await (await fetch(`${url}/api/v1/sessions/${id}${path}`, {
            headers,
          })).json(),
        );
      const read = (path: string) => readSession(session, path);
      // The conversation holds the prompt and the model's last answer; the trace, the command call.
      const detail = await read("");
      assert.match(detail, /Run `ls` and tell me what is here/);
      assert.match(
        detail,
        /I called (exec_command|shell|shell_command) and got/,
      );
      const traces = await read("/traces?limit=1000");
      assert.match(traces, /exec_command|"shell"|shell_command/, traces);

      // `switchyard why` explains each turn: rule, model, context, tokens and cost.
      const env = { url, apiKey, configHome };
      const last = await runCli(["why", session], env);
      assert.equal(last.code, 0, last.stderr);
      const [, of] = /^turn \d+ of (\d+)/m.exec(last.stdout) ?? [];
      assert.ok(Number(of) >= 2, last.stdout);
      const explained: string[] = [];
      for (let turn = 1; turn <= Number(of); turn++) {
        const why = await runCli(["why", session, "--turn", String(turn)], env);
        assert.equal(why.code, 0, why.stderr);
        explained.push(why.stdout);
        assert.match(why.stdout, new RegExp(`^turn ${turn} of ${of}`, "m"));
        assert.match(why.stdout, /^intent: +chat/m);
        assert.match(why.stdout, /^model: +openai-compat:demo\/demo-mini$/m);
        assert.match(why.stdout, /^routing: +default route/m);
        assert.match(why.stdout, /^context: +\+ /m);
        assert.match(
          why.stdout,
          /^tokens: +\d+ in, \d+ out, 0\.\d+ USD \(openai-compat:demo\/demo-mini\)$/m,
        );
      }
      // The command the model asked for in one turn, run by Codex and answered in a later one.
      const asked = explained.findIndex((t) =>
        /^tool call: +exec_command ls \(requested\)$/m.test(t)
      );
      const answered = explained.findIndex((t) =>
        /^tool call: +exec_command ls \(completed\)$/m.test(t)
      );
      assert.ok(asked >= 0 && answered > asked, explained.join("\n"));

      // More runs, each landing where Codex's conversation id (its `prompt_cache_key`) says.
      const thread = /^session id: (\S+)$/m.exec(run.stderr)?.[1];
      assert.ok(thread, transcript);
      const codexEnv = keylessEnv({ CODEX_HOME: codexHome, SWITCHYARD_API_KEY: apiKey });
      const ran = async (argv: string[]) => {
        const done = await codex(argv, project, codexEnv);
        assert.equal(done.code, 0, `exit ${done.code}\n${done.stdout}\n${done.stderr}`);
      };
      const ours = async () =>
        ((await (await fetch(`${url}/api/v1/sessions`, { headers })).json()).sessions as {
          id: string;
        }[]).map((s) => s.id).filter((id) => id !== demoSession);
      // The same printed line again: a new conversation of Codex's, so a session of its own.
      await ran(args);
      const second = (await ours()).filter((id) => id !== session);
      assert.equal(second.length, 1, JSON.stringify(await ours()));
      // `resume --last` continues the newest conversation, in its session; `resume <id>`
      // the first one, in the first session.
      await ran(["exec", "resume", "--last", "--skip-git-repo-check", "Plan the next release"]);
      await ran(["exec", "resume", "--skip-git-repo-check", thread, "Summarize what you saw"]);
      assert.deepEqual((await ours()).sort(), [session, second[0]].sort());
      const [first, newest] = [await read(""), await readSession(second[0])];
      assert.match(newest, /Plan the next release/);
      assert.doesNotMatch(newest, /Summarize what you saw/);
      assert.match(first, /Summarize what you saw/);
      assert.doesNotMatch(first, /Plan the next release/);
    } finally {
      signalDemo(demo, "SIGTERM");
    }
    assert.equal(await demo.exited, 0, demo.stderr());
  });
});
