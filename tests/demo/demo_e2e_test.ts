/**
 * The demo as a newcomer runs it: the launcher of `deno task demo` (on free
 * ports and a scratch directory), then the printed commands — the CLI's chat
 * and why with only SWITCHYARD_URL and SWITCHYARD_API_KEY set, and the HTTP
 * API — with no provider key anywhere in the environment.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { CHAT_PROMPT } from "../../demo/banner.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const onBun = process.versions.bun !== undefined;

/** The environment of everything started here: no provider key of any kind. */
function keylessEnv(
  extra: Record<string, string> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (
      value === undefined ||
      /_API_KEY$|^ROUTER_|^DATABASE_URL$|^SWITCHYARD_/.test(name)
    ) continue;
    env[name] = value;
  }
  return { ...env, NO_COLOR: "1", ...extra };
}

/** `deno task demo` without its install step: the task's own `deno run` line. */
async function launcherArgs(dir: string): Promise<string[]> {
  const options = ["--dir", dir, "--port", "0", "--provider-port", "0"];
  if (onBun) return ["demo/main.ts", ...options];
  const tasks = JSON.parse(await readFile(join(ROOT, "deno.json"), "utf8")).tasks;
  const run = (tasks.demo as string).split("&&").at(-1)!.trim().split(/\s+/);
  assert.equal(run[0], "deno");
  return [...run.slice(1), ...options];
}

interface Demo {
  child: ChildProcess;
  banner: string;
  url: string;
  apiKey: string;
  token: string;
  sessionId: string;
  providerUrl: string;
  previewFile: string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  /** The printed commands' arguments. */
  chat: string[];
  why: string[];
  /** What the launcher printed on stderr so far. */
  stderr(): string;
}

async function startDemo(dir: string): Promise<Demo> {
  const child = spawn(process.execPath, await launcherArgs(dir), {
    cwd: ROOT,
    env: keylessEnv(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  running.add(child);
  void exited.then(() => running.delete(child));
  let out = "";
  let err = "";
  child.stderr!.on(
    "data",
    (chunk: Uint8Array) => (err += new TextDecoder().decode(chunk)),
  );
  const banner = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGTERM");
      reject(
        new Error(
          `the demo did not print its banner in 120 s:\n${out}\n${err}`,
        ),
      );
    }, 120_000);
    child.stdout!.on("data", (chunk: Uint8Array) => {
      out += new TextDecoder().decode(chunk);
      if (out.includes("Stop with Ctrl-C.")) {
        clearTimeout(timer);
        resolve(out);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(
        new Error(
          `the demo exited (${code}) before its banner:\n${out}\n${err}`,
        ),
      );
    });
  });
  const find = (pattern: RegExp) => {
    const match = pattern.exec(banner);
    assert.ok(match, `${pattern} not in the banner:\n${banner}`);
    return match[1];
  };
  /** The arguments of the printed CLI command `name`, as a shell would split them. */
  const command = (name: string) => {
    const line = find(new RegExp(`(?:task cli --|cli/main\\.ts) (${name} .*)$`, "m"));
    return [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]);
  };
  return {
    child,
    banner,
    chat: command("chat"),
    why: command("why"),
    exited,
    stderr: () => err,
    url: find(/console\s+(http:\/\/\S+)\/console/),
    apiKey: find(/API key\s+(sk-router-api01-\S+)/),
    token: find(/Bearer (\S+)'/),
    sessionId: find(/ why ([0-9a-f-]{36})/),
    providerUrl: find(/answered by the demo provider at (\S+)/),
    previewFile: find(/-d @(\S+)/),
  };
}

/** The CLI from source, as the printed commands run it: key and URL from the environment. */
function cli(
  args: string[],
  demo: Demo,
  configHome: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const main = "clients/typescript/src/cli/main.ts";
  const argv = onBun ? [main, ...args] : ["run", "--allow-all", "--quiet", main, ...args];
  const child = spawn(process.execPath, argv, {
    cwd: ROOT,
    env: keylessEnv({
      SWITCHYARD_URL: demo.url,
      SWITCHYARD_API_KEY: demo.apiKey,
      XDG_CONFIG_HOME: configHome,
    }),
    stdio: ["pipe", "pipe", "pipe"],
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
  child.stdin!.end("");
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

async function api(
  demo: Demo,
  method: string,
  path: string,
  token: string,
  body?: unknown,
  // deno-lint-ignore no-explicit-any
): Promise<{ status: number; body: Record<string, any> }> {
  const response = await fetch(`${demo.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/**
 * By pid, not `child.kill`: Deno's child_process then reports the exit as the
 * signal even when the process handled it and exited with 0.
 */
const signal = (demo: Demo, name: "SIGTERM" | "SIGINT") => process.kill(demo.child.pid!, name);

const dirs: string[] = [];
/** Launchers not yet stopped: a failed assertion must not leave a demo running. */
const running = new Set<ChildProcess>();
after(async () => {
  for (const child of running) {
    const gone = new Promise((resolve) => child.once("exit", resolve));
    process.kill(child.pid!, "SIGTERM");
    await gone;
  }
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe("deno task demo", () => {
  test("serves turns without a provider key: CLI, why and HTTP, then stops and restarts", async () => {
    const dir = await mkdtemp(join(tmpdir(), "switchyard-demo-"));
    const configHome = await mkdtemp(join(tmpdir(), "switchyard-demo-cli-"));
    dirs.push(dir, configHome);
    const demo = await startDemo(dir);
    try {
      // 1. The printed chat: a review, routed to the large model, which reads README.md.
      const printed = ["chat", "--policy", "demo/policy.toml", "--session", demo.sessionId];
      assert.deepEqual(demo.chat, [...printed, CHAT_PROMPT]);
      const chat = await cli(demo.chat, demo, configHome);
      assert.equal(chat.code, 0, chat.stderr);
      assert.match(chat.stderr, /→ read_file \{"path":"README.md"\}/);
      assert.match(chat.stdout, /I called read_file and got \d+ lines back/);
      assert.match(chat.stdout, /answered by demo-large \(Demo Large\)/);

      // 2. Why that model.
      assert.deepEqual(demo.why, ["why", demo.sessionId]);
      const why = await cli(demo.why, demo, configHome);
      assert.equal(why.code, 0, why.stderr);
      assert.match(why.stdout, /review/);
      assert.match(why.stdout, /openai-compat:demo\/demo-large/);
      assert.match(why.stdout, /careful-review/);

      // 3. The printed preview: an edit goes to the code model.
      const preview = await api(
        demo,
        "POST",
        `/api/v1/sessions/${demo.sessionId}/preview`,
        demo.token,
        JSON.parse(await readFile(demo.previewFile, "utf8")),
      );
      assert.equal(preview.status, 200, JSON.stringify(preview.body));
      assert.equal(preview.body.routing.model, "demo-coder");
      assert.equal(preview.body.routing.matched_rule, "code-edits");
      assert.notEqual(preview.body.estimated_cost.max, "0");

      // A buffered turn over HTTP with the demo policy: chat goes to the small model.
      const policy = JSON.parse(await readFile(demo.previewFile, "utf8")).policy;
      const session = await api(demo, "POST", "/api/v1/sessions", demo.token, {
        title: "http",
      });
      const base = `/api/v1/sessions/${session.body.session.id}`;
      const hello = await api(demo, "POST", `${base}/execute`, demo.token, {
        input: { text: "hello, who are you?" },
        policy,
      });
      assert.equal(hello.status, 200, JSON.stringify(hello.body));
      assert.equal(hello.body.status, "completed");
      assert.equal(hello.body.data.routing.model, "demo-mini");
      assert.match(hello.body.data.message.content, /answered by demo-mini/);
      assert.notEqual(hello.body.data.usage.estimated_cost, "0");

      // A tool-call turn over HTTP: the code model asks for the file, then answers.
      const edit = await api(demo, "POST", `${base}/execute`, demo.token, {
        input: { text: "fix the typo in docs/guide.md" },
        policy,
      });
      assert.equal(
        edit.body.status,
        "awaiting_tool",
        JSON.stringify(edit.body),
      );
      const [request] = edit.body.data.tool_requests;
      assert.deepEqual([request.name, request.arguments], ["read_file", {
        path: "docs/guide.md",
      }]);
      const done = await api(demo, "POST", `${base}/continue`, demo.token, {
        type: "tool_results",
        data: {
          results: [{
            call_id: request.call_id,
            content: "# Guid\n",
            is_error: false,
          }],
        },
      });
      assert.equal(done.body.status, "completed", JSON.stringify(done.body));
      assert.equal(done.body.data.routing.model, "demo-coder");
      assert.match(
        done.body.data.message.content,
        /I called read_file and got 2 lines back/,
      );
      assert.match(done.body.data.message.content, /answered by demo-coder/);
    } finally {
      signal(demo, "SIGTERM");
    }
    assert.equal(await demo.exited, 0, demo.stderr());
    // Both children are gone with it: the provider no longer answers.
    await assert.rejects(() => fetch(`${demo.providerUrl}/models`));
    await assert.rejects(() => fetch(`${demo.url}/status`));

    // Started again on the same directory, the demo reuses its user's key.
    const again = await startDemo(dir);
    try {
      assert.equal(again.apiKey, demo.apiKey);
      assert.notEqual(again.sessionId, demo.sessionId);
    } finally {
      signal(again, "SIGINT");
    }
    assert.equal(await again.exited, 0, again.stderr());
  });
});
