/**
 * What a demo model answers: a canned reply chosen from the request alone, so
 * the same request always gets the same answer. The last message decides: a
 * tool result is answered in words (a tool loop ends there), an image in it by
 * its media type and size, or as left out when the service sent a note in its
 * place; a user message asking to run a command, write or read a file (one the
 * conversation has not read yet: a path it names, `shot.png` or `src/x.ts`), or
 * note something gets a call to the offered tool that does it, found by its
 * schema (tool_roles.ts); anything else gets the reply of its intent (review, edit, plan, summary,
 * chat), signed with the model that answered. The request's `tool_choice`,
 * `response_format` and output-token limit are honoured as a model would.
 */
import { jsonAnswer, valueFor, type WireResponseFormat } from "./json_answer.ts";
import {
  commandTool,
  noteTool,
  type OfferedTool,
  offeredTools,
  pathArguments,
  readTool,
  type ToolUse,
  type WireTool,
  writeTool,
} from "./tool_roles.ts";

export type { WireTool } from "./tool_roles.ts";

/** One model the demo provider serves (from the demo configuration). */
export interface DemoModel {
  id: string;
  displayName: string;
  contextWindow: number;
}

/** The parts of a Chat Completions message the demo reads. */
export interface WireMessage {
  role: string;
  content?: unknown;
  tool_call_id?: string;
  tool_calls?: { id?: string; function?: { name?: string; arguments?: string } }[];
}

/** `tool_choice` as Chat Completions sends it. */
export type WireToolChoice = "none" | "auto" | "required" | {
  type?: string;
  function?: { name?: string };
};

/** What the request asks of the answer besides its conversation. */
export interface AnswerOptions {
  toolChoice?: WireToolChoice;
  responseFormat?: WireResponseFormat;
  /** `max_completion_tokens`, else `max_tokens`: the most output tokens the answer may have. */
  maxTokens?: number;
}

export type Reply =
  | { kind: "text"; text: string; finish: "stop" | "length" }
  | { kind: "tool_call"; name: string; arguments: Record<string, unknown> };

export type Intent = "review" | "edit" | "plan" | "summarize" | "chat";

/** First match wins; the words a person uses when asking for each kind of work. */
const INTENT_WORDS: readonly [Intent, RegExp][] = [
  ["review", /\b(review|audit|critique)/i],
  ["edit", /\b(fix|edit|refactor|rename|implement|change)/i],
  ["plan", /\b(plan|design|roadmap)/i],
  ["summarize", /\b(summari[sz]e|summary|tldr)/i],
];

export function intentOf(text: string): Intent {
  return INTENT_WORDS.find(([, words]) => words.test(text))?.[0] ?? "chat";
}

/** A file path as a person writes one: `README.md`, `src/main.ts`, `./docs/api.md`. */
const PATH_TEXT = String.raw`(?:\.{0,2}\/)?(?:[\w.-]+\/)*[\w-]+\.[A-Za-z]\w{0,7}`;
/** A file path the user names, anywhere in the prompt. */
const PATH = new RegExp(
  String.raw`(?:^|[\s\x60'"(])(${PATH_TEXT})(?=$|[\s\x60'",:;!?)]|\.(?:\s|$))`,
);
/** A command in backticks after "run" or "execute". */
const COMMAND = /\b(?:run|execute)\b[^`]*`([^`]+)`/i;
const REMEMBER = /\bremember(?:\s+that)?\s+(.+)$/is;
/** "Create hello.txt", "write a file called notes/todo.md": the path right after the verb. */
const CREATE = new RegExp(
  String
    .raw`\b(?:create|write)\s+(?:an?\s+)?(?:new\s+)?(?:file\s+)?(?:called\s+|named\s+)?[\x60'"]?(${PATH_TEXT})`,
  "i",
);
/** What the new file should say: quoted or in backticks after "containing", "with", "saying". */
const CONTENT =
  /\b(?:containing|with|saying|says)\s+(?:the\s+)?(?:text\s+|line\s+|content\s+|words\s+)?(?:`([^`]*)`|"([^"]*)"|'([^']*)')/i;
const DEFAULT_CONTENT = "Hello from the Switchyard demo.";
/** Claude Code's reminders to the model, inside a user message; not what the person asked. */
const REMINDERS = /<system-reminder>[\s\S]*?<\/system-reminder>/g;

export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  // Content parts: the text parts, in order.
  return content
    .map((part) => (typeof part?.text === "string" ? part.text : ""))
    .join("");
}

/**
 * The call a prompt asks for, if a tool that does it is offered. A file the
 * conversation's calls already read (`read`, their path arguments) is not read
 * again: its content is in the history.
 */
export function toolCallFor(
  text: string,
  tools: readonly OfferedTool[],
  read: readonly string[] = [],
): ToolUse | null {
  const command = COMMAND.exec(text);
  const run = command ? commandTool(tools) : undefined;
  if (command && run) return run(command[1]);
  const remember = REMEMBER.exec(text);
  const note = remember ? noteTool(tools) : undefined;
  if (remember && note) return note(remember[1].trim().replace(/[.!]+$/, ""));
  const create = CREATE.exec(text);
  const write = create ? writeTool(tools) : undefined;
  if (create && write) {
    const content = CONTENT.exec(text);
    return write(create[1], content?.slice(1).find((c) => c !== undefined) ?? DEFAULT_CONTENT);
  }
  const path = PATH.exec(text);
  const reader = path ? readTool(tools) : undefined;
  if (path && reader && !read.some((p) => samePath(p, path[1]))) return reader(path[1]);
  return null;
}

/** `shot.png` and `./shot.png` name one file. */
const samePath = (called: string, named: string) =>
  called.replace(/^\.\//, "") === named.replace(/^\.\//, "");

/** Every path argument of the conversation's tool calls, in order. */
function pathsCalled(messages: readonly WireMessage[]): string[] {
  return messages.flatMap((m) => m.tool_calls ?? []).flatMap((call) => {
    try {
      const args = JSON.parse(call.function?.arguments ?? "");
      return typeof args === "object" && args !== null ? pathArguments(args) : [];
    } catch {
      return [];
    }
  });
}

const quote = (text: string, max = 80) => {
  const line = text.trim().replace(/\s+/g, " ");
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

function intentReply(intent: Intent, prompt: string): string {
  const asked = quote(prompt);
  switch (intent) {
    case "review":
      return [
        `Review of "${asked}":`,
        "1. The happy path reads well; the error paths deserve the same care.",
        "2. Name the value at fault in every error message, not only the rule.",
        "3. One test per rejected input would keep these promises honest.",
      ].join("\n");
    case "edit":
      return [
        `Here is the change I would make for "${asked}":`,
        "```diff",
        '-  if (!ok) throw new Error("failed");',
        "+  if (!ok) throw new Error(`failed: ${reason}`);",
        "```",
        "Apply it with your editor, or ask again with the file's path so I can read it first.",
      ].join("\n");
    case "plan":
      return [
        `A plan for "${asked}":`,
        "1. Write down what done looks like, as a test that fails today.",
        "2. Make the smallest change that passes it.",
        "3. Measure, then decide whether the next step is worth it.",
      ].join("\n");
    case "summarize": {
      const words = prompt.trim().split(/\s+/).filter((w) => w !== "").length;
      return `In short: you sent ${words} words asking for a summary; the gist is "${asked}".`;
    }
    case "chat":
      return `Hello! You said "${asked}". I am a demo model with canned answers, but the routing that chose me is real.`;
  }
}

/**
 * The part of a tool result a person would look at: a command's output
 * without the runner's preamble (Codex's `exec_command` reports "Process
 * exited with code 0 … Output:" first; its `shell` answers JSON with `output`).
 */
function resultBody(result: string): string {
  try {
    const parsed = JSON.parse(result);
    if (typeof parsed?.output === "string") return parsed.output;
  } catch {
    // Not JSON: plain text.
  }
  const marker = /^Output:\n/m.exec(result);
  return marker ? result.slice(marker.index + marker[0].length) : result;
}

/** The note the service puts where it left out an image, for a model that does not take one. */
const IMAGE_NOTE = /^\[image omitted: ([^\]]+)\]$/;

/** An image part of a message (`image_url`, a data URL or a link): its media type and size. */
function imageOf(part: unknown): string | undefined {
  const url = (part as { type?: string; image_url?: { url?: unknown } })?.image_url?.url;
  if (typeof url !== "string") return undefined;
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (data === null) return "image by URL";
  const bytes = Math.floor(data[2].replace(/=+$/, "").length * 3 / 4);
  return `${data[1]}, ${bytes} bytes`;
}

/** The images of a message's content parts. */
const imagesOf = (content: unknown) =>
  Array.isArray(content) ? content.map(imageOf).filter((i): i is string => i !== undefined) : [];

/**
 * The messages answering the last tool call: its tool message and, when it
 * returned images, the user message that carries them after it (OpenAI's chat
 * API takes images only there), which says nothing itself.
 */
function lastToolResult(messages: readonly WireMessage[]) {
  const last = messages.at(-1);
  if (last?.role === "tool") return { result: last, images: [] as string[] };
  const before = messages.at(-2);
  if (
    last?.role === "user" && before?.role === "tool" && textOf(last.content).trim() === "" &&
    imagesOf(last.content).length > 0
  ) {
    return { result: before, images: imagesOf(last.content) };
  }
  return undefined;
}

/** What came back from the call a tool message answers, in one sentence. */
function toolSummary(
  messages: readonly WireMessage[],
  last: WireMessage,
  images: readonly string[],
): string {
  const call = messages
    .flatMap((m) => m.tool_calls ?? [])
    .find((c) => c.id !== undefined && c.id === last.tool_call_id);
  const name = call?.function?.name ?? "the tool";
  // Images: what each is, and whether it reached the model or the service left it out.
  const body = resultBody(textOf(last.content)).split("\n");
  const notes = body.flatMap((line) => IMAGE_NOTE.exec(line.trim())?.slice(1) ?? []);
  const result = body.filter((line) => !IMAGE_NOTE.test(line.trim())).join("\n");
  const pictures = [
    ...notes.map((note) => `${note}, left out by the service: this model does not take images`),
    ...images,
  ];
  const count = pictures.length === 1 ? "an image" : `${pictures.length} images`;
  const seen = `${count} (${pictures.join("; ")})`;
  if (result.trim() === "" && pictures.length > 0) return `I called ${name} and got back ${seen}.`;
  const lines = result === "" ? 0 : result.split("\n").length;
  const first = result.split("\n").find((l) => l.trim() !== "") ?? "";
  return `I called ${name} and got ${lines} line${lines === 1 ? "" : "s"} back` +
    (first === "" ? "." : `, beginning with "${quote(first, 60)}".`) +
    (pictures.length === 0 ? "" : ` It also returned ${seen}.`);
}

const signature = (model: DemoModel) =>
  `\n\n— answered by ${model.id} (${model.displayName}), a model of the Switchyard demo provider.`;

/** Rough tokens, as a tokenizer gives for English: about four characters a token. */
export function tokenCount(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

/** The answer in words: JSON when the request asked for it, else signed text. */
const spoken = (words: string, model: DemoModel, options: AnswerOptions) =>
  jsonAnswer(options.responseFormat, words, model.id) ?? words + signature(model);

/** The text cut to `max` tokens (finish `length`) when it is longer. */
function limited(text: string, max: number | undefined): Reply {
  if (max === undefined || tokenCount(text) <= max) return { kind: "text", text, finish: "stop" };
  return {
    kind: "text",
    text: [...text].slice(0, Math.max(1, max) * 4).join(""),
    finish: "length",
  };
}

/** The tools a call may use under `choice`: none, all, or the one it names. */
function usable(tools: readonly OfferedTool[], choice: WireToolChoice | undefined) {
  if (choice === "none") return [];
  if (typeof choice === "object") return tools.filter((t) => t.name === choice.function?.name);
  return tools;
}

/** The answer of `model` to a conversation, offered `tools`. */
export function replyTo(
  model: DemoModel,
  messages: readonly WireMessage[],
  tools: readonly WireTool[],
  options: AnswerOptions = {},
): Reply {
  const answered = lastToolResult(messages);
  // The person's last words: a user message carrying only a tool's images says none.
  const prompt = textOf(
    [...messages].reverse().find((m) => m.role === "user" && textOf(m.content).trim() !== "")
      ?.content,
  ).replace(REMINDERS, "").trim();
  const intent = intentOf(prompt);
  const callable = usable(offeredTools(tools), options.toolChoice);
  const forced = options.toolChoice === "required" || typeof options.toolChoice === "object";

  let words: string;
  if (answered) {
    // The result is in: say what came back, then do what was asked. No second call
    // unless the client forces one, so an agent's loop ends here.
    const summary = toolSummary(messages, answered.result, answered.images);
    words = intent === "chat" ? summary : `${summary}\n\n${intentReply(intent, prompt)}`;
  } else {
    const call = toolCallFor(prompt, callable, pathsCalled(messages));
    if (call) {
      return fitted({ kind: "tool_call", ...call }, intentReply(intent, prompt), model, options);
    }
    words = intentReply(intent, prompt);
  }
  if (forced && callable.length > 0) {
    // Made to call a tool it has no use for: the first one allowed, with arguments its schema takes.
    const tool = callable[0];
    const args = valueFor({ type: "object", ...tool.schema }, prompt);
    const call = {
      kind: "tool_call" as const,
      name: tool.name,
      arguments: args as Record<string, unknown>,
    };
    return fitted(call, words, model, options);
  }
  return limited(spoken(words, model, options), options.maxTokens);
}

/**
 * A call that does not fit the output limit is not made: a model cut off
 * mid-arguments leaves nothing a client could run, so the answer is its
 * words, cut to the limit.
 */
function fitted(
  call: Reply & { kind: "tool_call" },
  words: string,
  model: DemoModel,
  options: AnswerOptions,
): Reply {
  const size = tokenCount(call.name + JSON.stringify(call.arguments));
  if (options.maxTokens === undefined || size <= options.maxTokens) return call;
  return limited(spoken(words, model, options), options.maxTokens);
}
