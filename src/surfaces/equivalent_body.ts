/**
 * The native turn body a compatible request equals (decisions.md §12, "A
 * compatible turn equals a native turn"): the turn's classification and
 * routing are decided on this body, so they are byte for byte what the native
 * preview of it gives. Pure: plain data in and out.
 *
 * - `input.text`: the last user message's own text, `<system-reminder>` blocks removed;
 * - `input.explicit_model`: the `provider/model` the client named, if any;
 * - `workspace.referenced_paths`: every path argument of the conversation's tool
 *   calls, in order of first appearance;
 * - `attachments.files`: the tool results after the last user message, required,
 *   each at its call's first path argument, else at `tool-results/<tool name>-<n>`
 *   (n counting from 1 per tool name, in order), its content the result's text
 *   and `content_hash` the `sha256:` of it.
 */
import { sha256Hex } from "../platform/secrets.ts";
import type { ChatMessage, ToolCall } from "../providers/types.ts";
import { argumentPaths } from "../engine/conversation_split.ts";

/**
 * Coding agents put their own notes into the user's message, wrapped in
 * `<system-reminder>` tags (Claude Code does): that text goes to the model as
 * sent, but it is not the user's own, so classification and the session's
 * title leave it out (decisions.md §4: keywords come from the user's text).
 */
const REMINDER = /<system-reminder>[\s\S]*?<\/system-reminder>/g;

export function ownText(text: string): string {
  const own = text.replace(REMINDER, "").trim();
  return own === "" ? text : own;
}

export interface EquivalentFile {
  path: string;
  content: string;
  content_hash: string;
  required: true;
}

export interface EquivalentBody {
  input: { text: string; explicit_model?: string };
  workspace: { referenced_paths: string[] };
  attachments: { files: EquivalentFile[]; instructions: [] };
}

/** Where a path-less tool result is attached: never a workspace file. */
export const TOOL_RESULTS_DIR = "tool-results/";

function callsOf(m: ChatMessage): readonly ToolCall[] {
  return m.role === "assistant" ? m.toolCalls ?? [] : [];
}

/** Null when the conversation has no user message. */
export function equivalentBody(
  messages: readonly ChatMessage[],
  explicitModel: string | null,
): EquivalentBody | null {
  const at = messages.findLastIndex((m) => m.role === "user");
  if (at < 0) return null;
  const prompt = messages[at];
  const referenced: string[] = [];
  const seen = new Set<string>();
  const calls = new Map<string, ToolCall>();
  for (const m of messages) {
    for (const call of callsOf(m)) {
      if (!calls.has(call.callId)) calls.set(call.callId, call);
      for (const path of argumentPaths(call.arguments)) {
        if (seen.has(path)) continue;
        seen.add(path);
        referenced.push(path);
      }
    }
  }
  const counts = new Map<string, number>();
  const files: EquivalentFile[] = [];
  for (const m of messages.slice(at + 1)) {
    if (m.role !== "tool") continue;
    const call = calls.get(m.callId);
    let path = call === undefined ? undefined : argumentPaths(call.arguments)[0];
    if (path === undefined) {
      const name = call?.name ?? "tool";
      const n = (counts.get(name) ?? 0) + 1;
      counts.set(name, n);
      path = `${TOOL_RESULTS_DIR}${name}-${n}`;
    }
    files.push({
      path,
      content: m.content,
      content_hash: `sha256:${sha256Hex(m.content)}`,
      required: true,
    });
  }
  return {
    input: {
      text: ownText(prompt.content),
      ...(explicitModel === null ? {} : { explicit_model: explicitModel }),
    },
    workspace: { referenced_paths: referenced },
    attachments: { files, instructions: [] },
  };
}

/** The attachment paths the body made up for path-less results: not workspace content. */
export function madeUpPaths(body: EquivalentBody): Set<string> {
  return new Set(
    body.attachments.files.map((f) => f.path).filter((p) =>
      p.startsWith(TOOL_RESULTS_DIR) && !body.workspace.referenced_paths.includes(p)
    ),
  );
}
