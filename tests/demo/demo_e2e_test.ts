/**
 * The demo as a newcomer runs it: the launcher of `deno task demo` (on free
 * ports and a scratch directory), then the printed commands — the CLI's chat
 * and why with only SWITCHYARD_URL and SWITCHYARD_API_KEY set, the HTTP API,
 * and the OpenAI SDK, curl and Claude Code settings it prints, as the official
 * `openai` and `@anthropic-ai/sdk` clients — with no provider key anywhere in
 * the environment.
 */
import assert from "node:assert/strict";
import { type ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { parse as parseToml } from "smol-toml";
import { CHAT_PROMPT, CURL_PROMPT, SDK_PROMPT } from "../../demo/banner.ts";
import { CODEX_PROMPT } from "../../demo/codex_config.ts";
import { launchDemo, ROOT, runCli, signalDemo, stopRunningDemos } from "../support/demo_launch.ts";

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
  /** What the OpenAI SDK snippet, the curl example and the Claude Code lines say. */
  snippet: { baseURL: string; apiKey: string; model: string };
  curl: { url: string; body: string };
  claude: Record<string, string>;
  /** Codex's printed configuration (parsed), its home and its `codex exec` line. */
  codex: { config: Record<string, unknown>; home: string; exec: string };
  /** What the launcher printed on stderr so far. */
  stderr(): string;
}

/** TOML as plain JSON objects (the parser's have no prototype). */
const toml = (text: string) => JSON.parse(JSON.stringify(parseToml(text)));

async function startDemo(dir: string): Promise<Demo> {
  const launched = await launchDemo(dir);
  const { banner, find } = launched;
  /** The arguments of the printed CLI command `name`, as a shell would split them. */
  const command = (name: string) => {
    const line = find(new RegExp(`(?:task cli --|cli/main\\.ts) (${name} .*)$`, "m"));
    return [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]);
  };
  const claude = Object.fromEntries(
    [...banner.matchAll(/\b(ANTHROPIC_[A-Z_]+)=(\S+)/g)].map((m) => [m[1], m[2]]),
  );
  return {
    child: launched.child,
    banner,
    chat: command("chat"),
    why: command("why"),
    snippet: {
      baseURL: find(/new OpenAI\(\{ baseURL: "([^"]+)"/),
      apiKey: find(/new OpenAI\(\{ baseURL: "[^"]+", apiKey: "([^"]+)" \}\)/),
      model: find(/chat\.completions\.create\(\{\n\s+model: "([^"]+)"/),
    },
    curl: {
      url: find(/curl -si (\S+\/v1\/chat\/completions)/),
      body: find(/-d '(\{"model".*\})'$/m),
    },
    claude,
    codex: {
      config: toml(find(/# 7\. Codex.*\n.*\n((?: {2}.*\n|\n)+?)\n {2}CODEX_HOME=/)),
      home: find(/the demo wrote\n\s+#\s+this to (\S+)\/config\.toml/),
      exec: find(/^ {2}(CODEX_HOME=.*)$/m),
    },
    exited: launched.exited,
    stderr: launched.stderr,
    url: find(/console\s+(http:\/\/\S+)\/console/),
    apiKey: find(/API key\s+(sk-router-api01-\S+)/),
    token: find(/Bearer (\S+)'/),
    sessionId: find(/ why ([0-9a-f-]{36})/),
    providerUrl: find(/answered by the demo provider at (\S+)/),
    previewFile: find(/-d @(\S+)/),
  };
}

/** The CLI from source, as the printed commands run it: key and URL from the environment. */
const cli = (args: string[], demo: Demo, configHome: string) =>
  runCli(args, { url: demo.url, apiKey: demo.apiKey, configHome });

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

const signal = signalDemo;

/** The demo's file-reading tool as an OpenAI client offers it. */
const READ_FILE = {
  type: "function" as const,
  function: {
    name: "read_file",
    description: "Read a file of the workspace",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
};

/**
 * The printed snippets, as the official clients run them: the OpenAI SDK
 * buffered, streamed and through a tool call; curl's request; the Anthropic
 * SDK as Claude Code is configured; then `why` on the tool call's session.
 */
async function compatibleClients(demo: Demo, configHome: string) {
  // The named policies the demo stored: "switchyard" is "default", Claude Code's is "demo".
  const stored = await api(demo, "GET", "/api/v1/policies", demo.token);
  assert.deepEqual(
    stored.body.policies.map((p: { name: string; version: number }) => [p.name, p.version]),
    [["default", 1], ["demo", 1]],
  );
  assert.match(demo.banner, /stored as your named policies "default" v1, "demo" v1/);

  // The OpenAI SDK snippet, as printed: a plan goes to the large model.
  assert.deepEqual(demo.snippet, {
    baseURL: `${demo.url}/v1`,
    apiKey: demo.apiKey,
    model: "switchyard",
  });
  const openai = new OpenAI({ baseURL: demo.snippet.baseURL, apiKey: demo.snippet.apiKey });
  const { data, response } = await openai.chat.completions.create({
    model: demo.snippet.model,
    messages: [{ role: "user", content: SDK_PROMPT }],
  }).withResponse();
  assert.equal(data.model, "openai-compat:demo/demo-large");
  assert.match(data.choices[0].message.content ?? "", /A plan for "Plan the next release"/);
  assert.match(response.headers.get("x-router-session-id") ?? "", /^[0-9a-f-]{36}$/);

  // Streamed, with usage: small talk goes to the small model.
  const stream = await openai.chat.completions.create({
    model: "switchyard",
    messages: [{ role: "user", content: "hello there" }],
    stream: true,
    stream_options: { include_usage: true },
  });
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  const text = chunks.flatMap((c) => c.choices.map((ch) => ch.delta.content ?? "")).join("");
  assert.match(text, /You said "hello there"/);
  assert.match(text, /answered by demo-mini/);
  assert.equal(chunks[0].model, "openai-compat:demo/demo-mini");
  assert.deepEqual(chunks.at(-1)!.choices, []);
  assert.ok(chunks.at(-1)!.usage!.completion_tokens > 0);

  // A tool-call round trip: the review asks for README.md, the client reads it, the model answers.
  const ask: OpenAI.ChatCompletionMessageParam = { role: "user", content: CHAT_PROMPT };
  const first = await openai.chat.completions.create({
    model: "switchyard",
    messages: [ask],
    tools: [READ_FILE],
  }).withResponse();
  const choice = first.data.choices[0];
  assert.equal(choice.finish_reason, "tool_calls");
  const toolCall = choice.message.tool_calls![0];
  assert.ok(toolCall.type === "function");
  assert.equal(toolCall.function.name, "read_file");
  assert.deepEqual(JSON.parse(toolCall.function.arguments), { path: "README.md" });
  const readme = await readFile(join(ROOT, "README.md"), "utf8");
  const result = { role: "tool" as const, tool_call_id: toolCall.id, content: readme };
  const second = await openai.chat.completions.create({
    model: "switchyard",
    messages: [ask, choice.message, result],
    tools: [READ_FILE],
  }).withResponse();
  const answer = second.data.choices[0].message.content ?? "";
  assert.match(answer, /I called read_file and got \d+ lines back, beginning with "# Switchyard"/);
  assert.match(answer, /answered by demo-large/);
  const session = second.response.headers.get("x-router-session-id")!;
  assert.equal(first.response.headers.get("x-router-session-id"), session);

  // What the request asks of the answer, honoured through the service: JSON, the output token
  // limit, and no tool call under tool_choice "none".
  const hello: OpenAI.ChatCompletionMessageParam = { role: "user", content: "hello" };
  const json = await openai.chat.completions.create({
    model: "switchyard",
    messages: [hello],
    response_format: { type: "json_object" },
  });
  assert.equal(JSON.parse(json.choices[0].message.content ?? "").model, "demo-mini");
  const cut = await openai.chat.completions.create({
    model: "switchyard",
    messages: [hello],
    max_tokens: 8,
  });
  assert.equal(cut.choices[0].finish_reason, "length");
  assert.equal(cut.usage?.completion_tokens, 8);
  const noTool = await openai.chat.completions.create({
    model: "switchyard",
    messages: [ask],
    tools: [READ_FILE],
    tool_choice: "none",
  });
  assert.equal(noTool.choices[0].finish_reason, "stop");
  assert.deepEqual(noTool.choices[0].message.tool_calls ?? [], []);

  // Codex's freeform apply_patch tool over the Responses API: the demo model finds it among the
  // tools by its one string input, writes the patch, and answers the patch's result in words.
  const applyPatch: OpenAI.Responses.CustomTool = {
    type: "custom",
    name: "apply_patch",
    description: "The `apply_patch` tool can be used to edit files. This is a FREEFORM tool.",
    format: {
      type: "grammar",
      syntax: "lark",
      definition: 'start: "*** Begin Patch" LF /(.|\\n)*/ "*** End Patch" LF?\nLF: "\\n"',
    },
  };
  const create = "Create hello.txt containing `Hello, Codex`";
  const patched = await openai.responses.create({
    model: "switchyard",
    input: create,
    tools: [applyPatch],
    store: false,
  });
  const patchCall = patched.output.find((item) => item.type === "custom_tool_call");
  assert.ok(patchCall?.type === "custom_tool_call", JSON.stringify(patched.output));
  assert.equal(patchCall.name, "apply_patch");
  assert.equal(
    patchCall.input,
    "*** Begin Patch\n*** Add File: hello.txt\n+Hello, Codex\n*** End Patch\n",
  );
  const applied = await openai.responses.create({
    model: "switchyard",
    input: [
      { role: "user", content: create },
      {
        type: "custom_tool_call",
        call_id: patchCall.call_id,
        name: "apply_patch",
        input: patchCall.input,
      },
      {
        type: "custom_tool_call_output",
        call_id: patchCall.call_id,
        output: "Success. Updated the following files:\nA hello.txt\n",
      },
    ],
    tools: [applyPatch],
    store: false,
  });
  assert.equal(applied.status, "completed");
  assert.match(
    applied.output_text,
    /^I called apply_patch and got 3 lines back, beginning with "Success\./,
  );

  // The curl example's request.
  assert.equal(demo.curl.url, `${demo.url}/v1/chat/completions`);
  assert.deepEqual(JSON.parse(demo.curl.body), {
    model: "switchyard",
    messages: [{ role: "user", content: CURL_PROMPT }],
  });
  const curl = await fetch(demo.curl.url, {
    method: "POST",
    headers: { authorization: `Bearer ${demo.apiKey}`, "content-type": "application/json" },
    body: demo.curl.body,
  });
  assert.equal(curl.status, 200);
  assert.equal((await curl.json()).model, "openai-compat:demo/demo-mini");

  // Claude Code's settings, as the Anthropic SDK uses them (a bearer token, no API key).
  assert.deepEqual(demo.claude, {
    ANTHROPIC_BASE_URL: demo.url,
    ANTHROPIC_AUTH_TOKEN: "$SWITCHYARD_API_KEY",
    ANTHROPIC_MODEL: "switchyard/demo",
    ANTHROPIC_SMALL_FAST_MODEL: "switchyard/demo",
    ANTHROPIC_DEFAULT_HAIKU_MODEL: "switchyard/demo",
  });
  const anthropic = new Anthropic({
    baseURL: demo.claude.ANTHROPIC_BASE_URL,
    apiKey: null,
    authToken: demo.apiKey,
  });
  const message = await anthropic.messages.create({
    model: demo.claude.ANTHROPIC_MODEL,
    max_tokens: 512,
    system: "You are a coding assistant.",
    messages: [{ role: "user", content: "Summarize what this project does" }],
  });
  assert.equal(message.model, "openai-compat:demo/demo-mini");
  assert.equal(message.stop_reason, "end_turn");
  assert.ok(message.content[0].type === "text");
  assert.match(message.content[0].text, /In short:/);

  // Codex's provider block, as printed and as written to the CODEX_HOME the exec line names
  // (the Codex run itself: tests/demo/codex_e2e_test.ts).
  assert.deepEqual(demo.codex.config, {
    model: "switchyard",
    model_provider: "switchyard",
    check_for_update_on_startup: false,
    features: { plugins: false },
    analytics: { enabled: false },
    model_providers: {
      switchyard: {
        name: "Switchyard",
        base_url: `${demo.url}/v1`,
        wire_api: "responses",
        env_key: "SWITCHYARD_API_KEY",
      },
    },
  });
  assert.deepEqual(
    toml(await readFile(join(demo.codex.home, "config.toml"), "utf8")),
    demo.codex.config,
  );
  assert.equal(
    demo.codex.exec,
    `CODEX_HOME=${demo.codex.home} codex exec --skip-git-repo-check '${CODEX_PROMPT}'`,
  );

  // Why the review's answer came from the large model: rule, model, context, cost.
  const why = await cli(["why", session], demo, configHome);
  assert.equal(why.code, 0, why.stderr);
  assert.match(why.stdout, /^turn 2 of 2/m);
  assert.match(why.stdout, /^intent: +review/m);
  assert.match(why.stdout, /^model: +openai-compat:demo\/demo-large$/m);
  assert.match(why.stdout, /^routing: +rule 'careful-review', effort high$/m);
  assert.match(why.stdout, /^context: +\+ /m);
  assert.match(
    why.stdout,
    /^tokens: +\d+ in, \d+ out, 0\.\d+ USD \(openai-compat:demo\/demo-large\)$/m,
  );
}

const dirs: string[] = [];
after(async () => {
  await stopRunningDemos();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe("deno task demo", () => {
  test("serves turns without a provider key: CLI, why, HTTP and the OpenAI and Anthropic SDKs, then stops and restarts", async () => {
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

      await compatibleClients(demo, configHome);
      // Another version of "demo", pushed by hand: the next start stores the file's again.
      const pushed = await api(demo, "PUT", "/api/v1/policies/demo", demo.token, {
        routing: { default: { model: "openai-compat:demo/demo-mini" } },
      });
      assert.equal(pushed.status, 201, JSON.stringify(pushed.body));
      assert.equal(pushed.body.version, 2);
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
      // A name gets a new version only when its latest differs from the file.
      assert.match(again.banner, /stored as your named policies "default" v1, "demo" v3/);
    } finally {
      signal(again, "SIGINT");
    }
    assert.equal(await again.exited, 0, again.stderr());
  });
});
