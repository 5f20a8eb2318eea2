/**
 * The demo provider drives real agents: it picks, from the tools a request
 * offers, the one that reads a file, runs a command or writes a file by its
 * schema (Claude Code's, Codex's and Switchyard's own tools, as each offers
 * them), ends a tool loop with words, and honours `tool_choice`, the output
 * token limit and JSON output, buffered and streamed, as the official `openai`
 * client reads it.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import * as ajvModule from "ajv/dist/2020.js";
import OpenAI from "openai";
import { replyTo } from "../../demo/provider/answers.ts";
import { type RunningProvider, startProvider } from "../../demo/provider/server.ts";
import { readDemoConfig } from "../../demo/demo_config.ts";
import { addFilePatch } from "../../demo/provider/tool_roles.ts";

const config = await readDemoConfig();
const model = config.models[0];

type Tool = OpenAI.ChatCompletionFunctionTool;
const fn = (
  name: string,
  description: string,
  properties: Record<string, unknown>,
  required: string[],
): Tool => ({
  type: "function",
  function: {
    name,
    description,
    parameters: { type: "object", properties, required, additionalProperties: false },
  },
});
const str = { type: "string" };
const num = { type: "number" };

/** Claude Code's tools as it offers them (descriptions shortened; schemas as sent). */
const CLAUDE_CODE: Tool[] = [
  fn("LS", "Lists files and directories in a given path.", {
    path: str,
    ignore: { type: "array", items: str },
  }, ["path"]),
  fn("Glob", "Fast file pattern matching tool.", { pattern: str, path: str }, ["pattern"]),
  fn("Grep", "A powerful search tool built on ripgrep.", { pattern: str, path: str }, ["pattern"]),
  fn(
    "Read",
    "Reads a file from the local filesystem.",
    { file_path: str, offset: num, limit: num },
    ["file_path"],
  ),
  fn("Edit", "Performs exact string replacements in files.", {
    file_path: str,
    old_string: str,
    new_string: str,
    replace_all: { type: "boolean" },
  }, ["file_path", "old_string", "new_string"]),
  fn("Write", "Writes a file to the local filesystem.", { file_path: str, content: str }, [
    "file_path",
    "content",
  ]),
  fn("Bash", "Executes a given bash command in a persistent shell session.", {
    command: str,
    timeout: num,
    description: str,
    run_in_background: { type: "boolean" },
  }, ["command"]),
];

/** Codex's tools: `shell` (an argv array), `exec_command` (a string), `view_image`, and `apply_patch`,
 * a freeform tool offered by the Responses surface as a function with one string parameter `input`. */
const CODEX_SHELL = fn("shell", "Runs a shell command and returns its output.", {
  command: { type: "array", items: str },
  workdir: str,
  timeout_ms: num,
}, ["command"]);
const CODEX_EXEC = fn("exec_command", "Runs a command in a PTY, returning output.", {
  cmd: str,
  workdir: str,
  yield_time_ms: num,
}, ["cmd"]);
const CODEX_VIEW_IMAGE = fn("view_image", "View a local image file from the filesystem.", {
  path: str,
}, ["path"]);
const CODEX_APPLY_PATCH = fn(
  "apply_patch",
  "Use the `apply_patch` tool to edit files. This is a FREEFORM tool.",
  { input: str },
  ["input"],
);

const user = (content: string): OpenAI.ChatCompletionMessageParam => ({ role: "user", content });

let provider: RunningProvider;
let client: OpenAI;
before(async () => {
  provider = await startProvider({ models: config.models, chunkDelayMs: 0, now: () => 0 });
  client = new OpenAI({ baseURL: provider.baseUrl, apiKey: "unused", maxRetries: 0 });
});
after(() => provider.close());

/** One buffered answer and the same request streamed, as the SDK assembles each. */
async function ask(body: Omit<OpenAI.ChatCompletionCreateParamsNonStreaming, "model">) {
  const buffered = await client.chat.completions.create({ model: model.id, ...body });
  const stream = await client.chat.completions.create({
    model: model.id,
    ...body,
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = "";
  let finish: string | null = null;
  let usage: OpenAI.CompletionUsage | undefined;
  const calls: { name: string; arguments: string }[] = [];
  for await (const chunk of stream) {
    usage = chunk.usage ?? usage;
    for (const choice of chunk.choices) {
      text += choice.delta.content ?? "";
      finish = choice.finish_reason ?? finish;
      for (const call of choice.delta.tool_calls ?? []) {
        calls[call.index] ??= { name: "", arguments: "" };
        calls[call.index].name += call.function?.name ?? "";
        calls[call.index].arguments += call.function?.arguments ?? "";
      }
    }
  }
  const choice = buffered.choices[0];
  // Streamed and buffered say the same thing.
  assert.equal(text, choice.message.content ?? "");
  assert.equal(finish, choice.finish_reason);
  assert.deepEqual(usage, buffered.usage);
  const bufferedCalls = (choice.message.tool_calls ?? []).map((c) => {
    assert.ok(c.type === "function");
    return { name: c.function.name, arguments: c.function.arguments };
  });
  assert.deepEqual(calls, bufferedCalls);
  return {
    text,
    finish,
    usage: buffered.usage!,
    call: bufferedCalls[0] &&
      { name: bufferedCalls[0].name, args: JSON.parse(bufferedCalls[0].arguments) },
  };
}

describe("the demo picks tools by their schemas", () => {
  const cases: [string, string, Tool[], { name: string; args: unknown } | undefined][] = [
    ["Claude Code reads a file with Read, not LS", "Please review README.md", CLAUDE_CODE, {
      name: "Read",
      args: { file_path: "README.md" },
    }],
    ["Claude Code runs a command with Bash", "run `git status` please", CLAUDE_CODE, {
      name: "Bash",
      args: { command: "git status" },
    }],
    [
      "Claude Code writes a file with Write",
      'Create notes/todo.md containing "ship it"',
      CLAUDE_CODE,
      {
        name: "Write",
        args: { file_path: "notes/todo.md", content: "ship it" },
      },
    ],
    ["Codex's shell takes the program and its arguments", "Run `ls -la` and tell me what is here", [
      CODEX_VIEW_IMAGE,
      CODEX_APPLY_PATCH,
      CODEX_SHELL,
    ], { name: "shell", args: { command: ["bash", "-lc", "ls -la"] } }],
    ["Codex's exec_command takes a command line", "Run `ls` and tell me what is here", [
      CODEX_EXEC,
      CODEX_VIEW_IMAGE,
    ], { name: "exec_command", args: { cmd: "ls" } }],
    ["Codex writes a file with apply_patch", "create hello.txt with the text `Hello, Codex`", [
      CODEX_EXEC,
      CODEX_APPLY_PATCH,
    ], {
      name: "apply_patch",
      args: { input: "*** Begin Patch\n*** Add File: hello.txt\n+Hello, Codex\n*** End Patch\n" },
    }],
    ["a tool that views images is not a file reader", "Please review README.md", [
      CODEX_VIEW_IMAGE,
      CODEX_EXEC,
    ], undefined],
    ["names do not matter: a read_file needing more than a path is not used", "review src/x.ts", [
      fn("read_file", "Read a file.", { path: str, encoding: str }, ["path", "encoding"]),
    ], undefined],
    ["names do not matter: a `shell` without a command parameter is not used", "run `ls`", [
      fn("shell", "Run a script.", { script: str }, ["script"]),
    ], undefined],
  ];
  for (const [name, prompt, tools, expected] of cases) {
    test(name, async () => {
      const answer = await ask({ messages: [user(prompt)], tools });
      if (expected === undefined) {
        assert.equal(answer.call, undefined);
        assert.equal(answer.finish, "stop");
        assert.match(answer.text, /answered by demo-mini/);
      } else {
        assert.deepEqual(answer.call, expected);
        assert.equal(answer.finish, "tool_calls");
      }
    });
  }

  test("a patch adds each line of the new file", () => {
    assert.equal(
      addFilePatch("a/b.txt", "one\ntwo\n"),
      "*** Begin Patch\n*** Add File: a/b.txt\n+one\n+two\n*** End Patch\n",
    );
  });

  test("Claude Code's reminders in the user message are not what was asked", () => {
    const reply = replyTo(model, [{
      role: "user",
      content: [
        { type: "text", text: "<system-reminder>Files: src/secret.ts</system-reminder>" },
        { type: "text", text: "hello" },
      ],
    }], CLAUDE_CODE);
    assert.equal(reply.kind, "text");
    assert.match(reply.kind === "text" ? reply.text : "", /You said "hello"/);
  });
});

describe("a tool loop ends with words", () => {
  test("Codex's command output is summarised, and no tool is called again", async () => {
    const call: OpenAI.ChatCompletionMessageToolCall = {
      id: "call_1",
      type: "function",
      function: { name: "exec_command", arguments: '{"cmd":"ls"}' },
    };
    const answer = await ask({
      messages: [
        user("Run `ls` and tell me what is here"),
        { role: "assistant", content: null, tool_calls: [call] },
        {
          role: "tool",
          tool_call_id: "call_1",
          content:
            "Chunk ID: 1\nWall time: 0.01 seconds\nProcess exited with code 0\nOutput:\nhello.txt\nnotes.md\n",
        },
      ],
      tools: [CODEX_EXEC],
    });
    assert.equal(answer.call, undefined);
    assert.equal(answer.finish, "stop");
    assert.match(
      answer.text,
      /^I called exec_command and got 3 lines back, beginning with "hello.txt"\./,
    );
  });

  test("Codex's shell answers JSON with its output; Claude Code's Read answers text", async () => {
    for (
      const [tool, output, first] of [
        [CODEX_SHELL, JSON.stringify({ output: "a.txt\n", metadata: { exit_code: 0 } }), "a.txt"],
        [CLAUDE_CODE[3], "     1→# Title\n     2→text\n", "1→# Title"],
      ] as const
    ) {
      const answer = await ask({
        messages: [
          user("what is here"),
          {
            role: "assistant",
            content: null,
            tool_calls: [{
              id: "c",
              type: "function",
              function: { name: tool.function.name, arguments: "{}" },
            }],
          },
          { role: "tool", tool_call_id: "c", content: output },
        ],
        tools: [tool],
      });
      assert.equal(answer.call, undefined);
      assert.match(
        answer.text,
        new RegExp(
          `I called ${tool.function.name} and got \\d+ lines? back, beginning with "${first}"`,
        ),
      );
    }
  });
});

describe("tool_choice", () => {
  test('"none": words even when the prompt asks for a tool', async () => {
    const answer = await ask({
      messages: [user("run `ls`")],
      tools: CLAUDE_CODE,
      tool_choice: "none",
    });
    assert.equal(answer.call, undefined);
    assert.equal(answer.finish, "stop");
    assert.match(answer.text, /You said "run `ls`"/);
  });

  test('"required": a call even when the prompt needs none, with arguments its schema takes', async () => {
    const answer = await ask({
      messages: [user("hello")],
      tools: [CODEX_EXEC],
      tool_choice: "required",
    });
    assert.equal(answer.finish, "tool_calls");
    assert.equal(answer.call?.name, "exec_command");
    assert.equal(typeof answer.call?.args.cmd, "string");
    assert.equal(typeof answer.call?.args.workdir, "string");
    assert.equal(typeof answer.call?.args.yield_time_ms, "number");
  });

  test("a named function: that one, and the prompt's call when it fits", async () => {
    const named = { type: "function" as const, function: { name: "Bash" } };
    const fits = await ask({
      messages: [user("run `pwd`")],
      tools: CLAUDE_CODE,
      tool_choice: named,
    });
    assert.deepEqual(fits.call, { name: "Bash", args: { command: "pwd" } });
    const other = await ask({
      messages: [user("Please review README.md")],
      tools: CLAUDE_CODE,
      tool_choice: named,
    });
    assert.equal(other.call?.name, "Bash");
  });
});

describe("the output token limit", () => {
  for (const field of ["max_completion_tokens", "max_tokens"] as const) {
    test(`${field}: the answer stops at the limit with finish_reason "length"`, async () => {
      const full = await ask({ messages: [user("please review my change")] });
      assert.equal(full.finish, "stop");
      assert.ok(full.usage.completion_tokens > 10);
      const cut = await ask({ messages: [user("please review my change")], [field]: 10 });
      assert.equal(cut.finish, "length");
      assert.equal(cut.usage.completion_tokens, 10);
      assert.ok(full.text.startsWith(cut.text));
      assert.ok(cut.text.length < full.text.length);
    });
  }

  test("a call that does not fit is not made: its words are cut instead", async () => {
    const answer = await ask({
      messages: [user("run `ls -la /a/very/long/path`")],
      tools: CLAUDE_CODE,
      max_tokens: 3,
    });
    assert.equal(answer.call, undefined);
    assert.equal(answer.finish, "length");
    assert.equal(answer.usage.completion_tokens, 3);
  });

  test("a limit the answer fits in changes nothing", async () => {
    const answer = await ask({ messages: [user("hello")], max_tokens: 4096 });
    assert.equal(answer.finish, "stop");
  });
});

describe("JSON output", () => {
  const Ajv2020 = (() => {
    // deno-lint-ignore no-explicit-any
    let value: any = ajvModule;
    while (typeof value !== "function" && value && "default" in value) value = value.default;
    return value;
  })();

  test("json_object: a JSON object with the answer and the model", async () => {
    const answer = await ask({
      messages: [user("hello")],
      response_format: { type: "json_object" },
    });
    assert.equal(answer.finish, "stop");
    const value = JSON.parse(answer.text);
    assert.equal(value.model, "demo-mini");
    assert.match(value.answer, /You said "hello"/);
  });

  test("json_schema: a value the schema accepts, held against it by a validator", async () => {
    const schema = {
      type: "object",
      properties: {
        summary: { type: "string" },
        risk: { type: "string", enum: ["low", "medium", "high"] },
        score: { type: "integer", minimum: 1, maximum: 5 },
        ok: { type: "boolean" },
        files: { type: "array", items: { $ref: "#/$defs/file" }, minItems: 2 },
        owner: { anyOf: [{ type: "string", minLength: 3 }, { type: "null" }] },
      },
      required: ["summary", "risk", "score", "ok", "files", "owner"],
      additionalProperties: false,
      $defs: {
        file: {
          type: "object",
          properties: { path: { type: "string" }, lines: { type: "number" } },
          required: ["path", "lines"],
          additionalProperties: false,
        },
      },
    };
    const answer = await ask({
      messages: [user("review src/main.ts")],
      response_format: {
        type: "json_schema",
        json_schema: { name: "review", schema, strict: true },
      },
    });
    const value = JSON.parse(answer.text);
    const validate = new Ajv2020({ strict: false }).compile(schema);
    assert.ok(validate(value), JSON.stringify(validate.errors));
    assert.match(value.summary, /^Review of "review src\/main.ts"/);
    assert.equal(value.files.length, 2);
    // The same schema, with a negative control: a value it refuses is refused.
    assert.equal(validate({ ...value, risk: "none" }), false);
  });

  test("after a tool result the answer is JSON too", async () => {
    const answer = await ask({
      messages: [
        user("what is in a.txt"),
        {
          role: "assistant",
          content: null,
          tool_calls: [{
            id: "c",
            type: "function",
            function: { name: "Read", arguments: '{"file_path":"a.txt"}' },
          }],
        },
        { role: "tool", tool_call_id: "c", content: "alpha\n" },
      ],
      tools: CLAUDE_CODE,
      response_format: { type: "json_object" },
    });
    assert.match(
      JSON.parse(answer.text).answer,
      /^I called Read and got 2 lines back, beginning with "alpha"/,
    );
  });
});
