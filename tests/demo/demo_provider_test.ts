/**
 * The demo provider read by the service's own OpenAI adapter and listing, as
 * the service reads it when the demo runs: answers streamed and buffered, a
 * tool call and the answer to its result, the model named in every reply,
 * and the same answer to the same request.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { intentOf, replyTo } from "../../demo/provider/answers.ts";
import { type RunningProvider, startProvider } from "../../demo/provider/server.ts";
import { DEMO_CONFIG, DEMO_PROVIDER, readDemoConfig } from "../../demo/demo_config.ts";
import { SERVICE_ARGS, SERVICE_ENV } from "../../demo/launch_args.ts";
import { loadConfig } from "../../src/config.ts";
import { registryFromConfig } from "../../src/main.ts";
import { ProviderError } from "../../src/providers/errors.ts";
import { listOpenAiModels } from "../../src/providers/listing_openai.ts";
import { mergeListing } from "../../src/providers/catalog.ts";
import { openAiChatAdapter } from "../../src/providers/openai_chat.ts";
import type {
  ChatMessage,
  CompletionRequest,
  ProviderEvent,
  ToolSpec,
} from "../../src/providers/types.ts";
import { BUILTIN_TOOLS } from "../../src/core/tool_catalog.ts";
import { imagesAsNotes } from "../../src/engine/image_notes.ts";

const config = await readDemoConfig();
const TOOLS: ToolSpec[] = BUILTIN_TOOLS.map((
  { name, description, parameters },
) => ({
  name,
  description,
  parameters,
}));

let provider: RunningProvider;
before(async () => {
  provider = await startProvider({
    models: config.models,
    chunkDelayMs: 0,
    now: () => 0,
  });
});
after(() => provider.close());

async function call(
  request: Partial<CompletionRequest>,
): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  const target = {
    provider: DEMO_PROVIDER,
    baseUrl: provider.baseUrl,
    timeoutMs: 10_000,
  };
  const full: CompletionRequest = {
    model: "demo-mini",
    messages: [],
    stream: false,
    system: "You are a coding assistant.",
    ...request,
  };
  for await (const event of openAiChatAdapter.invoke(target, full)) {
    events.push(event);
  }
  return events;
}

/**
 * Two of Claude Code 2.1's tools as it offers them (descriptions shortened):
 * `Read`, which says it reads images too, and `EnterWorktree`, which also
 * takes a lone `path` but reads nothing.
 */
const CLAUDE_CODE_TOOLS: ToolSpec[] = [
  {
    name: "EnterWorktree",
    description: "Use this tool ONLY when explicitly instructed to work in a worktree.",
    parameters: {
      type: "object",
      properties: { name: { type: "string" }, path: { type: "string" } },
      additionalProperties: false,
    },
  },
  {
    name: "Read",
    description:
      "Reads a file from the local filesystem.\n\n- `file_path` must be an absolute path.\n" +
      "- Reads images (PNG, JPG, …) and presents them visually.",
    parameters: {
      type: "object",
      properties: {
        file_path: { type: "string" },
        offset: { type: "integer", minimum: 0 },
        limit: { type: "integer", exclusiveMinimum: 0 },
        pages: { type: "string" },
      },
      required: ["file_path"],
      additionalProperties: false,
    },
  },
];

/** A 1×1 PNG, as Claude Code's Read returns a screenshot: base64 in the tool result. */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const PNG_BYTES = atob(PNG).length;

const text = (events: ProviderEvent[]) =>
  events.map((e) => (e.type === "text_delta" ? e.delta : "")).join("");
const user = (content: string): ChatMessage => ({ role: "user", content });

describe("demo provider, read by the service's OpenAI adapter", () => {
  for (const stream of [true, false]) {
    const how = stream ? "streamed" : "buffered";

    test(`answers ${how}, naming the model, with usage and a clean stop`, async () => {
      for (const model of config.models) {
        const events = await call({
          model: model.id,
          stream,
          messages: [user("hello there")],
        });
        assert.match(
          text(events),
          new RegExp(`answered by ${model.id} \\(${model.displayName}\\)`),
        );
        const usage = events.find((e) => e.type === "usage");
        assert.ok(
          usage?.type === "usage" && (usage.usage.inputTokens ?? 0) > 0,
        );
        assert.deepEqual(events.at(-1), {
          type: "end",
          stopReason: "stop",
          providerReason: "stop",
        });
      }
    });

    test(`calls an offered tool for a named file (${how}), then answers its result`, async () => {
      const ask = user("please review src/main.ts");
      const first = await call({
        model: "demo-large",
        stream,
        messages: [ask],
        tools: TOOLS,
      });
      const complete = first.find((e) => e.type === "tool_call_complete");
      assert.ok(complete?.type === "tool_call_complete", JSON.stringify(first));
      assert.equal(complete.name, "read_file");
      assert.deepEqual(complete.arguments, { path: "src/main.ts" });
      assert.deepEqual(first.at(-1), {
        type: "end",
        stopReason: "tool_calls",
        providerReason: "tool_calls",
      });
      const messages: ChatMessage[] = [
        ask,
        {
          role: "assistant",
          content: "",
          toolCalls: [{
            callId: "c1",
            providerCall: { provider: DEMO_PROVIDER, id: complete.callId! },
            name: "read_file",
            arguments: complete.arguments,
          }],
        },
        {
          role: "tool",
          callId: "c1",
          content: "import x;\nexport y;\n",
          isError: false,
        },
      ];
      const second = await call({
        model: "demo-large",
        stream,
        messages,
        tools: TOOLS,
      });
      assert.equal(second.some((e) => e.type === "tool_call_complete"), false);
      assert.match(
        text(second),
        /I called read_file and got 3 lines back, beginning with "import x;"/,
      );
      assert.match(text(second), /Review of/);
      assert.match(text(second), /answered by demo-large/);
    });
  }

  for (const stream of [true, false]) {
    const how = stream ? "streamed" : "buffered";

    test(`reads the PNG a prompt names with Claude Code's Read, then says what came back (${how})`, async () => {
      const ask = user("Please review shot.png");
      const first = await call({
        model: "demo-large",
        stream,
        messages: [ask],
        tools: CLAUDE_CODE_TOOLS,
      });
      const complete = first.find((e) => e.type === "tool_call_complete");
      assert.ok(complete?.type === "tool_call_complete", JSON.stringify(first));
      assert.deepEqual([complete.name, complete.arguments], ["Read", { file_path: "shot.png" }]);
      const conversation: ChatMessage[] = [
        ask,
        {
          role: "assistant",
          content: "",
          toolCalls: [{
            callId: "c1",
            providerCall: { provider: DEMO_PROVIDER, id: complete.callId! },
            name: "Read",
            arguments: complete.arguments,
          }],
        },
        // Claude Code's Read of a PNG: no text, one image.
        {
          role: "tool",
          callId: "c1",
          content: "",
          isError: false,
          images: [{ mediaType: "image/png", data: PNG }],
        },
      ];
      const answer = async (messages: ChatMessage[]) => {
        const events = await call({
          model: "demo-large",
          stream,
          messages,
          tools: CLAUDE_CODE_TOOLS,
        });
        assert.equal(
          events.some((e) => e.type === "tool_call_complete"),
          false,
          JSON.stringify(events),
        );
        assert.deepEqual(events.at(-1), {
          type: "end",
          stopReason: "stop",
          providerReason: "stop",
        });
        return text(events);
      };
      // A model that takes images gets it after the tool message (the adapter's user message)...
      const seen = await answer(conversation);
      assert.match(
        seen,
        new RegExp(`^I called Read and got back an image \\(image/png, ${PNG_BYTES} bytes\\)\\.`),
      );
      assert.match(seen, /Review of "Please review shot.png"/);
      // ...one that does not, the service's note in its place (engine/image_notes.ts).
      const noted = await answer(imagesAsNotes(conversation).messages);
      assert.match(
        noted,
        new RegExp(
          `^I called Read and got back an image \\(image/png, ${PNG_BYTES} bytes, left out by the service: ` +
            "this model does not take images\\)\\.",
        ),
      );

      // The conversation goes on: a file it has read is not read again; a new one is.
      const history: ChatMessage[] = [
        ...conversation,
        { role: "assistant", content: noted },
      ];
      const again = await answer([...history, user("What is in shot.png?")]);
      assert.match(again, /You said "What is in shot.png\?"/);
      const next = await call({
        model: "demo-large",
        stream,
        messages: [...history, user("Now summarize README.md")],
        tools: CLAUDE_CODE_TOOLS,
      });
      const read = next.find((e) => e.type === "tool_call_complete");
      assert.ok(read?.type === "tool_call_complete", JSON.stringify(next));
      assert.deepEqual([read.name, read.arguments], ["Read", { file_path: "README.md" }]);
    });
  }

  test("a file the conversation's calls read is not read again, whichever tool read it", () => {
    const model = config.models[0];
    const tools = CLAUDE_CODE_TOOLS.map((t) => ({ type: "function", function: t }));
    const history = [
      { role: "user", content: "review src/x.ts" },
      {
        role: "assistant",
        tool_calls: [{
          id: "c",
          function: { name: "Edit", arguments: '{"file_path":"./src/x.ts"}' },
        }],
      },
      { role: "tool", tool_call_id: "c", content: "export {};\n" },
      { role: "assistant", content: "Done." },
    ];
    const asked = (prompt: string) =>
      replyTo(model, [...history, { role: "user", content: prompt }], tools);
    assert.equal(asked("and src/x.ts again?").kind, "text");
    // Another file of the same name is another file.
    assert.deepEqual(asked("now lib/x.ts"), {
      kind: "tool_call",
      name: "Read",
      arguments: { file_path: "lib/x.ts" },
    });
  });

  test("asks for no tool when none is offered, or when the prompt needs none", async () => {
    const noTools = await call({
      messages: [user("please review src/main.ts")],
    });
    assert.equal(noTools.some((e) => e.type === "tool_call_complete"), false);
    const noNeed = await call({
      messages: [user("how are you?")],
      tools: TOOLS,
    });
    assert.equal(noNeed.some((e) => e.type === "tool_call_complete"), false);
  });

  test("runs a command in backticks and records a note through the offered tools", async () => {
    const shell = await call({
      messages: [user("run `ls -la` please")],
      tools: TOOLS,
    });
    const run = shell.find((e) => e.type === "tool_call_complete");
    assert.ok(run?.type === "tool_call_complete");
    assert.deepEqual([run.name, run.arguments], ["shell", {
      command: "ls -la",
    }]);
    const memory = await call({
      messages: [user("Remember that I like tabs.")],
      tools: TOOLS,
    });
    const note = memory.find((e) => e.type === "tool_call_complete");
    assert.ok(note?.type === "tool_call_complete");
    assert.deepEqual(note.arguments, {
      op: "record",
      scope: "user",
      key: "demo-note",
      value: "I like tabs",
    });
  });

  test("gives the same answer, ids included, to the same request", async () => {
    const body = JSON.stringify({
      model: "demo-coder",
      messages: [{ role: "user", content: "x" }],
    });
    const answer = async () =>
      await (await fetch(`${provider.baseUrl}/chat/completions`, {
        method: "POST",
        body,
      })).text();
    assert.equal(await answer(), await answer());
  });

  test("refuses a model it does not serve as OpenAI does: model_not_found", async () => {
    await assert.rejects(
      () => call({ model: "gpt-4o", messages: [user("hi")] }),
      (error) => error instanceof ProviderError && error.category === "model_not_found",
    );
  });

  test("lists its models with their windows, as the service reads a listing", async () => {
    const entry = registryFromConfig(
      await loadConfig(["--config", DEMO_CONFIG], {}),
    )
      .providers.find((p) => p.id === DEMO_PROVIDER)!;
    const live = await listOpenAiModels(
      { ...entry, base_url: provider.baseUrl },
      undefined,
      { fetch, signal: AbortSignal.timeout(5000) },
    );
    assert.deepEqual(
      live.map((m) => [m.id, m.max_context_tokens]),
      config.models.map((m) => [m.id, m.contextWindow]),
    );
    // The configuration declares what a listing never says: every demo model has a price.
    for (const model of mergeListing(entry, entry.models!)) {
      assert.ok(model.input_cost_per_million_tokens, model.model);
      assert.ok(model.output_cost_per_million_tokens, model.model);
      assert.equal(model.capabilities.tools, true, model.model);
    }
  });
});

describe("demo answers", () => {
  test("differ by intent, read from the prompt's words", () => {
    const model = config.models[0];
    const cases = {
      "please review my change": "review",
      "fix the bug": "edit",
      "plan the release": "plan",
      "summarize this thread": "summarize",
      "hello": "chat",
    } as const;
    const replies = new Set<string>();
    for (const [prompt, intent] of Object.entries(cases)) {
      assert.equal(intentOf(prompt), intent, prompt);
      const reply = replyTo(model, [{ role: "user", content: prompt }], []);
      assert.equal(reply.kind, "text");
      replies.add(
        reply.kind === "text" ? reply.text.split("\n")[0].split(" ")[0] : "",
      );
    }
    assert.equal(replies.size, Object.keys(cases).length);
  });
});

describe("demo launcher", () => {
  test("starts the service as the start task does (deno.json, or package.json under Bun)", async () => {
    const read = async (file: string) =>
      JSON.parse(
        await readFile(
          fileURLToPath(new URL(`../../${file}`, import.meta.url)),
          "utf8",
        ),
      );
    if (SERVICE_ARGS[0] === "run") {
      const start: string = (await read("deno.json")).tasks.start.split("&&")
        .at(-1).trim();
      const env = Object.entries(SERVICE_ENV).map(([name, value]) => `${name}=${value} `).join("");
      assert.equal(`${env}deno ${SERVICE_ARGS.join(" ")}`, start);
    } else {
      assert.equal(
        `bun ${SERVICE_ARGS.join(" ")}`,
        (await read("package.json")).scripts.start,
      );
    }
  });
});
