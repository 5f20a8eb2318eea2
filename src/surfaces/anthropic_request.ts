/**
 * An Anthropic Messages request (`POST /v1/messages`, and the body of
 * `/v1/messages/count_tokens`) translated into the neutral turn (decisions.md
 * §12), block by block. Tool results, which Anthropic carries in user
 * messages, become the neutral tool messages before the user's own text.
 * Thinking settings are left to the policy's effort; unknown fields are ignored.
 */
import type {
  CacheMark,
  ChatMessage,
  ImagePart,
  SamplingOptions,
  ToolCall,
  ToolChoice,
  ToolSpec,
} from "../providers/types.ts";
import type { CompatRequest } from "./compat_turn.ts";
import {
  boundedNumber,
  invalid,
  isObject,
  objectOr,
  refusedMessage,
  unsupported,
} from "./request_fields.ts";

const FIELDS: Record<string, string> = {
  seed: "seed",
  response_format: "output_format",
  tool_choice: "tool_choice",
  images: "messages[].content[].image",
  image_url: "messages[].content[].source",
  stop: "stop_sequences",
  top_p: "top_p",
  temperature: "temperature",
};

/**
 * A block's `cache_control`, kept so it reaches an Anthropic model as sent
 * (decisions.md §15); absent when the block has none.
 */
function cacheMark(block: Record<string, unknown>, path: string): CacheMark | undefined {
  const control = block.cache_control;
  if (control === undefined || control === null) return undefined;
  if (!isObject(control) || control.type !== "ephemeral") {
    throw invalid(`${path}.cache_control`, '{"type": "ephemeral"}');
  }
  if (control.ttl === undefined || control.ttl === null) return {};
  if (typeof control.ttl !== "string") throw invalid(`${path}.cache_control.ttl`, "a string");
  return { ttl: control.ttl };
}

/** The last mark of a block list (the one nearest the end of what it covers). */
function lastMark(content: unknown, path: string): CacheMark | undefined {
  if (!Array.isArray(content)) return undefined;
  let mark: CacheMark | undefined;
  content.forEach((b, i) => {
    if (isObject(b)) mark = cacheMark(b, `${path}[${i}]`) ?? mark;
  });
  return mark;
}

const withMark = <T extends ChatMessage>(message: T, mark: CacheMark | undefined): T =>
  mark === undefined ? message : { ...message, cache: mark };

function blockText(content: unknown, path: string): string {
  if (typeof content === "string") return content;
  if (content === undefined || content === null) return "";
  if (!Array.isArray(content)) throw invalid(path, "a string or an array of text blocks");
  return content.map((b, i) => {
    if (isObject(b) && b.type === "text" && typeof b.text === "string") return b.text;
    throw invalid(`${path}[${i}]`, "a text block");
  }).join("");
}

/** A tool result's content: its text blocks joined, and its images (a screenshot a tool read). */
function resultContent(content: unknown, path: string): { text: string; images: ImagePart[] } {
  if (!Array.isArray(content)) return { text: blockText(content, path), images: [] };
  const texts: string[] = [];
  const images: ImagePart[] = [];
  content.forEach((b, i) => {
    if (isObject(b) && b.type === "image") images.push(image(b, `${path}[${i}]`));
    else if (isObject(b) && b.type === "text" && typeof b.text === "string") texts.push(b.text);
    else throw invalid(`${path}[${i}]`, "a text or image block");
  });
  return { text: texts.join(""), images };
}

function image(block: Record<string, unknown>, path: string): ImagePart {
  const source = block.source;
  if (isObject(source) && source.type === "base64" && typeof source.data === "string") {
    return {
      data: source.data,
      ...(typeof source.media_type === "string" ? { mediaType: source.media_type } : {}),
    };
  }
  if (isObject(source) && source.type === "url" && typeof source.url === "string") {
    return { url: source.url };
  }
  throw invalid(`${path}.source`, 'a "base64" or "url" image source');
}

function userMessages(content: unknown, path: string): ChatMessage[] {
  if (!Array.isArray(content)) return [{ role: "user", content: blockText(content, path) }];
  const results: ChatMessage[] = [];
  const texts: string[] = [];
  const images: ImagePart[] = [];
  let userMark: CacheMark | undefined;
  content.forEach((b, i) => {
    const at = `${path}[${i}]`;
    if (!isObject(b)) throw invalid(at, "a content block");
    const mark = cacheMark(b, at);
    if (b.type === "text" && typeof b.text === "string") {
      texts.push(b.text);
      userMark = mark ?? userMark;
    } else if (b.type === "image") {
      images.push(image(b, at));
      userMark = mark ?? userMark;
    } else if (b.type === "tool_result") {
      if (typeof b.tool_use_id !== "string") throw invalid(`${at}.tool_use_id`, "a string");
      const result = resultContent(b.content, `${at}.content`);
      results.push(withMark({
        role: "tool",
        callId: b.tool_use_id,
        content: result.text,
        isError: b.is_error === true,
        ...(result.images.length === 0 ? {} : { images: result.images }),
      }, mark));
    } else throw unsupported(`${at}.type`, `content block type ${JSON.stringify(b.type)}`);
  });
  if (texts.length === 0 && images.length === 0) return results;
  const user: ChatMessage = images.length === 0
    ? { role: "user", content: texts.join("\n") }
    : { role: "user", content: texts.join("\n"), images };
  return [...results, withMark(user, userMark)];
}

function assistantMessage(content: unknown, path: string): ChatMessage {
  if (!Array.isArray(content)) return { role: "assistant", content: blockText(content, path) };
  const texts: string[] = [];
  const calls: ToolCall[] = [];
  content.forEach((b, i) => {
    const at = `${path}[${i}]`;
    if (!isObject(b)) throw invalid(at, "a content block");
    if (b.type === "text" && typeof b.text === "string") texts.push(b.text);
    else if (b.type === "tool_use") {
      if (typeof b.id !== "string" || typeof b.name !== "string" || !isObject(b.input)) {
        throw invalid(at, 'a tool_use block {"id", "name", "input"}');
      }
      calls.push({ callId: b.id, name: b.name, arguments: b.input });
    } else if (b.type === "thinking" || b.type === "redacted_thinking") {
      // Another model's reasoning is not replayed: the next call may go elsewhere.
    } else throw unsupported(`${at}.type`, `content block type ${JSON.stringify(b.type)}`);
  });
  const text = texts.join("");
  const mark = lastMark(content, path);
  return withMark(
    calls.length === 0
      ? { role: "assistant", content: text }
      : { role: "assistant", content: text, toolCalls: calls },
    mark,
  );
}

/** The content index of a user message's `n`th tool result (they come first in what it adds). */
function resultIndex(content: unknown, n: number): number {
  if (!Array.isArray(content)) return n;
  let seen = -1;
  const at = content.findIndex((b) => isObject(b) && b.type === "tool_result" && ++seen === n);
  return at < 0 ? n : at;
}

/**
 * The conversation, and the text of its `system` messages: instructions a
 * client (Claude Code, for one) places between turns. The neutral turn has one
 * system prompt, so they join it, in order, after the request's `system`.
 */
function conversation(raw: unknown): { messages: ChatMessage[]; systems: string[] } {
  if (!Array.isArray(raw) || raw.length === 0) throw invalid("messages", "a non-empty array");
  const systems: string[] = [];
  /** The calls earlier assistant messages made: a tool result answers one of them. */
  const called = new Set<string>();
  const messages = raw.flatMap((m, i) => {
    const at = `messages[${i}]`;
    if (!isObject(m)) throw invalid(at, "a message object");
    if (m.role === "user") {
      // As Anthropic's API: a user message has content (text, or at least one block).
      if (
        m.content === undefined || m.content === null || m.content === "" ||
        (Array.isArray(m.content) && m.content.length === 0)
      ) {
        throw refusedMessage(`${at}.content`, "a user message needs non-empty content");
      }
      const added = userMessages(m.content, `${at}.content`);
      added.forEach((r, j) => {
        if (r.role === "tool" && !called.has(r.callId)) {
          throw refusedMessage(
            `${at}.content[${resultIndex(m.content, j)}].tool_use_id`,
            `no earlier assistant message made the tool_use '${r.callId}' this tool_result answers`,
          );
        }
      });
      return added;
    }
    if (m.role === "assistant") {
      const answer = assistantMessage(m.content, `${at}.content`);
      if (answer.role === "assistant") answer.toolCalls?.forEach((c) => called.add(c.callId));
      return [answer];
    }
    if (m.role === "system") {
      systems.push(blockText(m.content, `${at}.content`));
      return [];
    }
    throw invalid(`${at}.role`, "user, assistant or system");
  });
  return { messages, systems };
}

function system(raw: unknown, more: readonly string[]): string | null {
  const first = raw === undefined || raw === null ? "" : blockText(raw, "system");
  const text = [first, ...more].filter((t) => t !== "").join("\n\n");
  return text === "" ? null : text;
}

function tools(raw: unknown): ToolSpec[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw invalid("tools", "an array of tools");
  return raw.map((t, i) => {
    if (!isObject(t) || typeof t.name !== "string") {
      throw invalid(`tools[${i}]`, 'a tool {"name", "input_schema"}');
    }
    if (t.type !== undefined && t.type !== "custom") {
      throw unsupported(`tools[${i}].type`, `server tool ${JSON.stringify(t.type)}`);
    }
    const mark = cacheMark(t, `tools[${i}]`);
    return {
      name: t.name,
      description: typeof t.description === "string" ? t.description : "",
      parameters: objectOr(t.input_schema, `tools[${i}].input_schema`, {
        type: "object",
        properties: {},
      }),
      ...(mark === undefined ? {} : { cache: mark }),
    };
  });
}

function toolChoice(raw: unknown): ToolChoice | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isObject(raw)) throw invalid("tool_choice", "an object");
  if (raw.type === "auto" || raw.type === "none") return raw.type;
  if (raw.type === "any") return "required";
  if (raw.type === "tool" && typeof raw.name === "string") return { name: raw.name };
  throw invalid("tool_choice", 'type "auto", "any", "none" or "tool" with a name');
}

function sampling(body: Record<string, unknown>): SamplingOptions | undefined {
  const stop = body.stop_sequences;
  if (
    stop !== undefined && stop !== null &&
    !(Array.isArray(stop) && stop.every((s) => typeof s === "string"))
  ) {
    throw invalid("stop_sequences", "an array of strings");
  }
  // Anthropic's own ranges: temperature 0–1, top_p 0–1.
  const temperature = boundedNumber(body, "temperature", 0, 1);
  const topP = boundedNumber(body, "top_p", 0, 1);
  const out: SamplingOptions = {
    ...(temperature === undefined ? {} : { temperature }),
    ...(topP === undefined ? {} : { topP }),
    ...(Array.isArray(stop) && stop.length > 0 ? { stop: stop as string[] } : {}),
  };
  return Object.keys(out).length === 0 ? undefined : out;
}

/** The request without its output limit: what count_tokens reads too. */
export function anthropicConversation(body: Record<string, unknown>) {
  if (typeof body.model !== "string" || body.model === "") throw invalid("model", "a model name");
  const { messages, systems } = conversation(body.messages);
  const text = system(body.system, systems);
  const systemCache = text === null ? undefined : lastMark(body.system, "system");
  return {
    model: body.model,
    system: text,
    ...(systemCache === undefined ? {} : { systemCache }),
    messages,
    tools: tools(body.tools),
  };
}

/** The session part of Claude Code's older `user_<hash>_account_<uuid>_session_<uuid>`. */
const SESSION_PART = /_session_([A-Za-z0-9-]+)$/;

/**
 * The conversation a client names in `metadata.user_id`, when it carries a
 * session part: Claude Code sends `user_<hash>_account_<uuid>_session_<uuid>`,
 * or (2.1.78 and later) the JSON text `{"device_id", "account_uuid",
 * "session_id"}`. A user id without one names a user, not a conversation.
 */
export function metadataSessionKey(metadata: unknown): string | null {
  if (!isObject(metadata)) return null;
  const id = metadata.user_id;
  let parsed: unknown = id;
  if (typeof id === "string" && id.trimStart().startsWith("{")) {
    try {
      parsed = JSON.parse(id);
    } catch {
      return null;
    }
  }
  if (isObject(parsed)) {
    const session = parsed.session_id;
    return typeof session === "string" && session !== "" ? session : null;
  }
  if (typeof parsed !== "string") return null;
  return SESSION_PART.exec(parsed)?.[1] ?? null;
}

export function anthropicMessagesRequest(body: Record<string, unknown>): CompatRequest {
  const { model, system, systemCache, messages, tools } = anthropicConversation(body);
  const max = body.max_tokens;
  if (typeof max !== "number" || !Number.isInteger(max) || max < 1) {
    throw invalid("max_tokens", "an integer of at least 1");
  }
  if (body.top_k !== undefined && body.top_k !== null) {
    boundedNumber(body, "top_k", 0);
    throw unsupported("top_k", '"top_k"');
  }
  if (body.stream !== undefined && typeof body.stream !== "boolean") {
    throw invalid("stream", "a boolean");
  }
  const choice = toolChoice(body.tool_choice);
  const options = sampling(body);
  const key = metadataSessionKey(body.metadata);
  return {
    surface: "anthropic",
    model,
    system,
    ...(systemCache === undefined ? {} : { systemCache }),
    messages,
    tools,
    ...(choice === undefined ? {} : { toolChoice: choice }),
    ...(options === undefined ? {} : { sampling: options }),
    maxOutputTokens: max,
    stream: body.stream === true,
    ...(key === null ? {} : { conversationKey: key }),
    fieldOf: (option) => FIELDS[option] ?? option,
  };
}
