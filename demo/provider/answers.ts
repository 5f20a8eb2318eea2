/**
 * What a demo model answers: a canned reply chosen from the request alone, so
 * the same request always gets the same answer. The last message decides: a
 * tool result is answered in words; a user message asking for a file, a
 * command or a note gets a call to the offered tool that does it; anything
 * else gets the reply of its intent (review, edit, plan, summary, chat), signed
 * with the model that answered.
 */

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

export interface WireTool {
  type?: string;
  function?: { name?: string };
}

export type Reply =
  | { kind: "text"; text: string }
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

/** A file path the user names: `README.md`, `src/main.ts`, `./docs/api.md`. */
const PATH =
  /(?:^|[\s`'"(])((?:\.{0,2}\/)?(?:[\w.-]+\/)*[\w-]+\.[A-Za-z][\w]{0,7})(?=$|[\s`'",:;!?)]|\.(?:\s|$))/;
/** A command in backticks after "run" or "execute". */
const COMMAND = /\b(?:run|execute)\b[^`]*`([^`]+)`/i;
const REMEMBER = /\bremember(?:\s+that)?\s+(.+)$/is;

export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  // Content parts: the text parts, in order.
  return content
    .map((part) => (typeof part?.text === "string" ? part.text : ""))
    .join("");
}

/** The tool call a prompt asks for, if the tool that does it is offered. */
export function toolCallFor(text: string, offered: ReadonlySet<string>): Reply | null {
  const command = COMMAND.exec(text);
  if (command && offered.has("shell")) {
    return { kind: "tool_call", name: "shell", arguments: { command: command[1] } };
  }
  const remember = REMEMBER.exec(text);
  if (remember && offered.has("memory")) {
    const value = remember[1].trim().replace(/[.!]+$/, "");
    return {
      kind: "tool_call",
      name: "memory",
      arguments: { op: "record", scope: "user", key: "demo-note", value },
    };
  }
  const path = PATH.exec(text);
  if (path && offered.has("read_file")) {
    return { kind: "tool_call", name: "read_file", arguments: { path: path[1] } };
  }
  return null;
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

/** What came back from the call a tool message answers, in one sentence. */
function toolSummary(messages: readonly WireMessage[], last: WireMessage): string {
  const call = messages
    .flatMap((m) => m.tool_calls ?? [])
    .find((c) => c.id !== undefined && c.id === last.tool_call_id);
  const name = call?.function?.name ?? "the tool";
  const result = textOf(last.content);
  const lines = result === "" ? 0 : result.split("\n").length;
  const first = result.split("\n").find((l) => l.trim() !== "") ?? "";
  return `I called ${name} and got ${lines} line${lines === 1 ? "" : "s"} back` +
    (first === "" ? "." : `, beginning with "${quote(first, 60)}".`);
}

const signature = (model: DemoModel) =>
  `\n\n— answered by ${model.id} (${model.displayName}), a model of the Switchyard demo provider.`;

/** The answer of `model` to a conversation, offered `tools`. */
export function replyTo(
  model: DemoModel,
  messages: readonly WireMessage[],
  tools: readonly WireTool[],
): Reply {
  const last = messages.at(-1);
  const prompt = textOf([...messages].reverse().find((m) => m.role === "user")?.content);
  const intent = intentOf(prompt);
  if (last?.role === "tool") {
    // The result is in: say what came back, then do what was asked (once: no second call).
    const summary = toolSummary(messages, last);
    const text = intent === "chat" ? summary : `${summary}\n\n${intentReply(intent, prompt)}`;
    return { kind: "text", text: text + signature(model) };
  }
  const offered = new Set(tools.map((t) => t.function?.name).filter((n) => n !== undefined));
  return toolCallFor(prompt, offered) ??
    { kind: "text", text: intentReply(intent, prompt) + signature(model) };
}
