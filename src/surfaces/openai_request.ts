/**
 * An OpenAI Chat Completions request (`POST /v1/chat/completions`) translated
 * into the neutral turn (decisions.md §12), field by field. What the API
 * defines but no routed model can honour here is refused by name (400); what
 * is malformed is `invalid_request` naming its path; unknown fields are ignored.
 */
import type {
  ChatMessage,
  ImagePart,
  ResponseFormat,
  SamplingOptions,
  ToolCall,
  ToolChoice,
  ToolSpec,
  UserMessage,
} from "../providers/types.ts";
import type { CompatRequest } from "./compat_turn.ts";
import {
  boundedNumber,
  dataUrlImage,
  invalid,
  isObject,
  objectOr,
  refusedMessage,
  unsupported,
} from "./request_fields.ts";

/** Neutral option → this API's field, for the 400 that names it. */
const FIELDS: Record<string, string> = {
  seed: "seed",
  response_format: "response_format",
  tool_choice: "tool_choice",
  images: "messages[].content[].image_url",
  image_url: "messages[].content[].image_url",
  stop: "stop",
  top_p: "top_p",
  temperature: "temperature",
};

/** Fields this API defines that no model call here can honour, with the value that is harmless. */
const REFUSED: readonly [string, (v: unknown) => boolean][] = [
  ["n", (v) => v === 1],
  ["logprobs", (v) => v === false],
  ["top_logprobs", (v) => v === 0],
  ["presence_penalty", (v) => v === 0],
  ["frequency_penalty", (v) => v === 0],
  ["logit_bias", (v) => isObject(v) && Object.keys(v).length === 0],
  ["audio", () => false],
  ["prediction", () => false],
  ["modalities", (v) => Array.isArray(v) && v.every((m) => m === "text")],
];

function text(content: unknown, path: string): string {
  if (typeof content === "string") return content;
  if (content === null || content === undefined) return "";
  if (!Array.isArray(content)) throw invalid(path, "a string or an array of content parts");
  return content.map((part, i) => {
    if (!isObject(part) || part.type !== "text" || typeof part.text !== "string") {
      throw invalid(`${path}[${i}]`, 'a text part ({"type": "text", "text": "…"})');
    }
    return part.text;
  }).join("");
}

function userMessage(content: unknown, path: string): ChatMessage {
  if (!Array.isArray(content)) return { role: "user", content: text(content, path) };
  const texts: string[] = [];
  const images: ImagePart[] = [];
  content.forEach((part, i) => {
    const at = `${path}[${i}]`;
    if (!isObject(part)) throw invalid(at, "a content part object");
    if (part.type === "text" && typeof part.text === "string") texts.push(part.text);
    else if (part.type === "image_url") {
      if (!isObject(part.image_url)) throw invalid(`${at}.image_url`, 'an object {"url"}');
      const url = part.image_url.url;
      if (typeof url !== "string" || url === "") throw invalid(`${at}.image_url.url`, "a URL");
      images.push(dataUrlImage(url) ?? { url });
    } else throw unsupported(`${at}.type`, `content part type ${JSON.stringify(part.type)}`);
  });
  return images.length === 0
    ? { role: "user", content: texts.join("") }
    : { role: "user", content: texts.join(""), images };
}

function toolCalls(raw: unknown, path: string): ToolCall[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw invalid(path, "an array of tool calls");
  return raw.map((call, i) => {
    const at = `${path}[${i}]`;
    const fn = isObject(call) ? call.function : undefined;
    if (isObject(call) && fn !== undefined && !isObject(fn)) {
      throw invalid(`${at}.function`, 'an object {"name", "arguments"}');
    }
    if (
      !isObject(call) || typeof call.id !== "string" || !isObject(fn) || typeof fn.name !== "string"
    ) {
      throw invalid(
        at,
        'a tool call {"id", "type": "function", "function": {"name", "arguments"}}',
      );
    }
    let args: unknown = {};
    if (typeof fn.arguments === "string" && fn.arguments.trim() !== "") {
      try {
        args = JSON.parse(fn.arguments);
      } catch {
        throw invalid(`${at}.function.arguments`, "a JSON object as a string");
      }
    }
    if (!isObject(args)) throw invalid(`${at}.function.arguments`, "a JSON object as a string");
    return { callId: call.id, name: fn.name, arguments: args };
  });
}

function conversation(raw: unknown): { system: string | null; messages: ChatMessage[] } {
  if (!Array.isArray(raw) || raw.length === 0) throw invalid("messages", "a non-empty array");
  const system: string[] = [];
  const messages: ChatMessage[] = [];
  /** The calls earlier assistant messages made: a tool message answers one of them. */
  const called = new Set<string>();
  raw.forEach((m, i) => {
    const at = `messages[${i}]`;
    if (!isObject(m)) throw invalid(at, "a message object");
    switch (m.role) {
      case "system":
      case "developer":
        system.push(text(m.content, `${at}.content`));
        break;
      case "user":
        // As OpenAI's API: a user message has content (a string, or at least one part).
        if (m.content === undefined || m.content === null) {
          throw refusedMessage(`${at}.content`, "a user message needs content");
        }
        if (Array.isArray(m.content) && m.content.length === 0) {
          throw refusedMessage(`${at}.content`, "a user message needs at least one content part");
        }
        messages.push(userMessage(m.content, `${at}.content`));
        break;
      case "assistant": {
        const calls = toolCalls(m.tool_calls, `${at}.tool_calls`);
        for (const c of calls) called.add(c.callId);
        const content = text(m.content, `${at}.content`);
        messages.push(
          calls.length === 0
            ? { role: "assistant", content }
            : { role: "assistant", content, toolCalls: calls },
        );
        break;
      }
      case "tool":
        if (typeof m.tool_call_id !== "string") throw invalid(`${at}.tool_call_id`, "a string");
        if (!called.has(m.tool_call_id)) {
          throw refusedMessage(
            `${at}.tool_call_id`,
            `no earlier assistant message made the tool call '${m.tool_call_id}' this tool message answers`,
          );
        }
        {
          // Chat Completions documents text parts only; an image part some clients send is kept.
          const result = userMessage(m.content, `${at}.content`) as UserMessage;
          messages.push({
            role: "tool",
            callId: m.tool_call_id,
            content: result.content,
            isError: false,
            ...(result.images === undefined ? {} : { images: result.images }),
          });
        }
        break;
      default:
        throw invalid(`${at}.role`, "one of system, developer, user, assistant, tool");
    }
  });
  return { system: system.length === 0 ? null : system.join("\n\n"), messages };
}

function tools(raw: unknown): ToolSpec[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw invalid("tools", "an array of function tools");
  return raw.map((t, i) => {
    const fn = isObject(t) ? t.function : undefined;
    if (isObject(t) && fn !== undefined && !isObject(fn)) {
      throw invalid(`tools[${i}].function`, 'an object {"name", "parameters"}');
    }
    if (!isObject(t) || t.type !== "function" || !isObject(fn) || typeof fn.name !== "string") {
      throw invalid(`tools[${i}]`, 'a function tool {"type": "function", "function": {"name"}}');
    }
    return {
      name: fn.name,
      description: typeof fn.description === "string" ? fn.description : "",
      parameters: objectOr(fn.parameters, `tools[${i}].function.parameters`, {
        type: "object",
        properties: {},
      }),
    };
  });
}

function toolChoice(raw: unknown): ToolChoice | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (raw === "auto" || raw === "none" || raw === "required") return raw;
  const fn = isObject(raw) ? raw.function : undefined;
  if (isObject(raw) && fn !== undefined && !isObject(fn)) {
    throw invalid("tool_choice.function", 'an object {"name"}');
  }
  if (isObject(raw) && raw.type === "function" && isObject(fn) && typeof fn.name === "string") {
    return { name: fn.name };
  }
  throw invalid(
    "tool_choice",
    '"auto", "none", "required" or {"type": "function", "function": {"name"}}',
  );
}

function responseFormat(raw: unknown): ResponseFormat | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isObject(raw)) throw invalid("response_format", "an object");
  if (raw.type === "text" || raw.type === "json_object") return { type: raw.type };
  const spec = raw.json_schema;
  if (spec !== undefined && !isObject(spec)) {
    throw invalid("response_format.json_schema", 'an object {"name", "schema"}');
  }
  if (raw.type === "json_schema" && isObject(spec) && typeof spec.name === "string") {
    return {
      type: "json_schema",
      name: spec.name,
      schema: objectOr(spec.schema, "response_format.json_schema.schema", {}),
      ...(typeof spec.strict === "boolean" ? { strict: spec.strict } : {}),
    };
  }
  throw invalid(
    "response_format",
    'type "text", "json_object" or "json_schema" with json_schema.name',
  );
}

function number(body: Record<string, unknown>, field: string): number | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isFinite(v)) throw invalid(field, "a number");
  return v;
}

function integer(body: Record<string, unknown>, field: string, min: number): number | undefined {
  const v = number(body, field);
  if (v !== undefined && (!Number.isInteger(v) || v < min)) {
    throw invalid(field, `an integer of at least ${min}`);
  }
  return v;
}

/** The ranges OpenAI's Chat Completions API gives its numbers. */
const RANGES: readonly [string, number, number][] = [
  ["temperature", 0, 2],
  ["top_p", 0, 1],
  ["presence_penalty", -2, 2],
  ["frequency_penalty", -2, 2],
  ["n", 1, 128],
  ["top_logprobs", 0, 20],
];

function sampling(body: Record<string, unknown>): SamplingOptions | undefined {
  const stop = body.stop === undefined || body.stop === null
    ? undefined
    : typeof body.stop === "string"
    ? [body.stop]
    : Array.isArray(body.stop) && body.stop.every((s) => typeof s === "string")
    ? body.stop as string[]
    : (() => {
      throw invalid("stop", "a string or an array of strings");
    })();
  const out: SamplingOptions = {
    ...(number(body, "temperature") === undefined
      ? {}
      : { temperature: number(body, "temperature") }),
    ...(number(body, "top_p") === undefined ? {} : { topP: number(body, "top_p") }),
    ...(stop === undefined || stop.length === 0 ? {} : { stop }),
    ...(integer(body, "seed", Number.MIN_SAFE_INTEGER) === undefined
      ? {}
      : { seed: body.seed as number }),
    ...(responseFormat(body.response_format) === undefined
      ? {}
      : { responseFormat: responseFormat(body.response_format) }),
  };
  return Object.keys(out).length === 0 ? undefined : out;
}

/** `prompt_cache_key` names the conversation (Codex sends its conversation id there). */
function conversationKey(raw: unknown): { conversationKey: string } | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== "string") throw invalid("prompt_cache_key", "a string");
  return raw === "" ? null : { conversationKey: raw };
}

export interface OpenAiRequest extends CompatRequest {
  includeUsage: boolean;
}

export function openAiChatRequest(body: Record<string, unknown>): OpenAiRequest {
  if (typeof body.model !== "string" || body.model === "") throw invalid("model", "a model name");
  // Out of the API's own range is a malformed request, whatever model would take it.
  for (const [field, min, max] of RANGES) boundedNumber(body, field, min, max);
  for (const [field, harmless] of REFUSED) {
    if (body[field] !== undefined && body[field] !== null && !harmless(body[field])) {
      throw unsupported(field, `"${field}"`);
    }
  }
  if (body.stream !== undefined && typeof body.stream !== "boolean") {
    throw invalid("stream", "a boolean");
  }
  const { system, messages } = conversation(body.messages);
  const max = integer(body, "max_completion_tokens", 1) ?? integer(body, "max_tokens", 1);
  const choice = toolChoice(body.tool_choice);
  const options = sampling(body);
  const streamOptions = objectOr(body.stream_options, "stream_options", {});
  const key = conversationKey(body.prompt_cache_key);
  return {
    surface: "openai",
    model: body.model,
    system,
    messages,
    tools: tools(body.tools),
    ...(choice === undefined ? {} : { toolChoice: choice }),
    ...(options === undefined ? {} : { sampling: options }),
    ...(max === undefined ? {} : { maxOutputTokens: max }),
    stream: body.stream === true,
    includeUsage: streamOptions.include_usage === true,
    // The client's own key names its session and goes to the provider as sent (§12, §15).
    ...(key === null ? {} : { ...key, cacheKey: key.conversationKey }),
    fieldOf: (option) => FIELDS[option] ?? option,
  };
}
