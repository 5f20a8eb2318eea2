/**
 * An OpenAI Responses API request (`POST /v1/responses`) translated into the
 * neutral turn (decisions.md §14), field by field: `instructions` and the
 * system/developer messages are the system prompt, the input items (with a
 * previous response's chain before them) the conversation, function and
 * custom tools the client's tools. What the API defines but the service
 * cannot honour is refused by name (400); unknown fields are ignored.
 */
import { ServiceError } from "../core/errors.ts";
import type {
  ChatMessage,
  ImagePart,
  ResponseFormat,
  SamplingOptions,
  ToolCall,
  ToolChoice,
  ToolSpec,
} from "../providers/types.ts";
import type { StoredResponse } from "../store/responses.ts";
import type { CompatRequest } from "./compat_turn.ts";
import { dataUrlImage, invalid, isObject, objectOr, unsupported } from "./request_fields.ts";

type Item = Record<string, unknown>;

/** Neutral option → this API's field, for the 400 that names it. */
const FIELDS: Record<string, string> = {
  response_format: "text.format",
  tool_choice: "tool_choice",
  images: "input[].content[].image_url",
  image_url: "input[].content[].image_url",
  top_p: "top_p",
  temperature: "temperature",
  seed: "seed",
  stop: "stop",
};

/** OpenAI's hosted tools: run by OpenAI, never offered to a model here (decisions.md §14). */
const HOSTED_CHOICES = new Set([
  "web_search",
  "web_search_preview",
  "web_search_preview_2025_03_11",
  "web_search_2025_08_26",
  "file_search",
  "code_interpreter",
  "image_generation",
  "computer_use",
  "computer_use_preview",
  "computer",
  "mcp",
  "local_shell",
  "shell",
  "apply_patch",
]);

/** What the response object repeats of its request (OpenAI's shape). */
export interface ResponseEcho {
  instructions: string | null;
  tools: Item[];
  tool_choice: unknown;
  temperature: number;
  top_p: number;
  parallel_tool_calls: boolean;
  max_output_tokens: number | null;
  previous_response_id: string | null;
  reasoning: { effort: unknown; summary: unknown };
  text: { format: Item };
  truncation: "auto" | "disabled";
  metadata: Record<string, string>;
  store: boolean;
  service_tier: string;
  user: string | null;
  prompt_cache_key: string | null;
}

export interface ResponsesRequest extends CompatRequest {
  echo: ResponseEcho;
  /** Names of the client's custom (freeform) tools: their calls answer as `custom_tool_call`. */
  customTools: ReadonlySet<string>;
  /** This request's own input items, references resolved, as they are stored. */
  inputItems: Item[];
  /** The earlier responses' items this request continues (the chain), oldest first. */
  chainItems: Item[];
}

/** What a request refers to and must be read first: its previous response and item references. */
export function responsesReferences(
  body: Record<string, unknown>,
): { previous: string | null; itemIds: string[] } {
  const previous = body.previous_response_id;
  if (previous !== undefined && previous !== null && typeof previous !== "string") {
    throw invalid("previous_response_id", "a response id string");
  }
  const itemIds = Array.isArray(body.input)
    ? body.input.flatMap((item) =>
      isObject(item) && item.type === "item_reference" && typeof item.id === "string"
        ? [item.id]
        : []
    )
    : [];
  return { previous: previous ?? null, itemIds };
}

function textOfParts(content: unknown, path: string, kinds: readonly string[]): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) throw invalid(path, "a string or an array of content parts");
  return content.map((part, i) => {
    if (!isObject(part) || !kinds.includes(part.type as string)) {
      throw invalid(`${path}[${i}]`, `a part of type ${kinds.join(" or ")}`);
    }
    const text = part.type === "refusal" ? part.refusal : part.text;
    if (typeof text !== "string") {
      throw invalid(`${path}[${i}].${part.type === "refusal" ? "refusal" : "text"}`, "a string");
    }
    return text;
  }).join("");
}

function userMessage(content: unknown, path: string): ChatMessage {
  if (typeof content === "string") return { role: "user", content };
  if (!Array.isArray(content)) throw invalid(path, "a string or an array of content parts");
  const texts: string[] = [];
  const images: ImagePart[] = [];
  content.forEach((part, i) => {
    const at = `${path}[${i}]`;
    if (!isObject(part)) throw invalid(at, "a content part object");
    if (part.type === "input_text" || part.type === "output_text") {
      if (typeof part.text !== "string") throw invalid(`${at}.text`, "a string");
      texts.push(part.text);
    } else if (part.type === "input_image") {
      if (typeof part.image_url !== "string" || part.image_url === "") {
        if (part.file_id !== undefined && part.file_id !== null) {
          throw unsupported(`${at}.file_id`, '"file_id" (uploaded files)');
        }
        throw invalid(`${at}.image_url`, "an image URL or data: URL");
      }
      images.push(dataUrlImage(part.image_url) ?? { url: part.image_url });
    } else if (part.type === "input_file" || part.type === "input_audio") {
      throw unsupported(`${at}.type`, `content part type "${part.type}"`);
    } else throw invalid(`${at}.type`, "input_text or input_image");
  });
  return images.length === 0
    ? { role: "user", content: texts.join("") }
    : { role: "user", content: texts.join(""), images };
}

function parseArguments(raw: unknown, path: string): Record<string, unknown> {
  if (typeof raw !== "string") throw invalid(path, "a JSON object as a string");
  if (raw.trim() === "") return {};
  let args: unknown;
  try {
    args = JSON.parse(raw);
  } catch {
    throw invalid(path, "a JSON object as a string");
  }
  if (!isObject(args)) throw invalid(path, "a JSON object as a string");
  return args;
}

function outputText(raw: unknown, path: string): string {
  if (typeof raw === "string") return raw;
  if (!Array.isArray(raw)) throw invalid(path, "a string or an array of content parts");
  return raw.map((part, i) => {
    if (isObject(part) && (part.type === "input_text" || part.type === "output_text")) {
      if (typeof part.text !== "string") throw invalid(`${path}[${i}].text`, "a string");
      return part.text;
    }
    if (isObject(part) && part.type === "input_image") return "[image]";
    throw invalid(`${path}[${i}]`, "an input_text part");
  }).join("");
}

function stringField(item: Item, field: string, path: string): string {
  const v = item[field];
  if (typeof v !== "string" || v === "") throw invalid(`${path}.${field}`, "a non-empty string");
  return v;
}

/**
 * The items as the neutral conversation: system and developer messages go to
 * the system prompt, consecutive calls join the assistant message before them,
 * reasoning is dropped (never replayed to another model).
 */
function conversation(items: readonly Item[], paths: readonly string[]) {
  const system: string[] = [];
  const messages: ChatMessage[] = [];
  /** A call joins the assistant message just before it, or makes one. */
  const addCall = (call: ToolCall) => {
    const last = messages.at(-1);
    if (last?.role === "assistant") {
      messages[messages.length - 1] = { ...last, toolCalls: [...(last.toolCalls ?? []), call] };
    } else messages.push({ role: "assistant", content: "", toolCalls: [call] });
  };
  items.forEach((item, i) => {
    const at = paths[i];
    const type = item.type ?? (item.role === undefined ? undefined : "message");
    switch (type) {
      case "message":
        switch (item.role) {
          case "system":
          case "developer":
            system.push(textOfParts(item.content, `${at}.content`, ["input_text"]));
            break;
          case "user":
            messages.push(userMessage(item.content, `${at}.content`));
            break;
          case "assistant":
            messages.push({
              role: "assistant",
              content: textOfParts(item.content, `${at}.content`, [
                "output_text",
                "refusal",
                "input_text",
              ]),
            });
            break;
          default:
            throw invalid(`${at}.role`, "one of user, system, developer, assistant");
        }
        break;
      case "function_call":
        addCall({
          callId: stringField(item, "call_id", at),
          name: stringField(item, "name", at),
          arguments: parseArguments(item.arguments, `${at}.arguments`),
        });
        break;
      case "custom_tool_call": {
        if (typeof item.input !== "string") throw invalid(`${at}.input`, "a string");
        addCall({
          callId: stringField(item, "call_id", at),
          name: stringField(item, "name", at),
          arguments: { input: item.input },
        });
        break;
      }
      case "function_call_output":
      case "custom_tool_call_output":
        messages.push({
          role: "tool",
          callId: stringField(item, "call_id", at),
          content: outputText(item.output, `${at}.output`),
          isError: false,
        });
        break;
      case "reasoning":
        break;
      default:
        throw unsupported(`${at}.type`, `input item type ${JSON.stringify(type)}`);
    }
  });
  return { system, messages };
}

/** An input item as stored and listed: a message's string content as parts, its status. */
function storedItem(item: Item): Item | null {
  const type = item.type ?? "message";
  if (type === "reasoning") return null;
  if (type === "message") {
    const assistant = item.role === "assistant";
    const content = typeof item.content === "string"
      ? [
        assistant
          ? { type: "output_text", text: item.content, annotations: [], logprobs: [] }
          : { type: "input_text", text: item.content },
      ]
      : (item.content as Item[]).map((part) =>
        part.type === "output_text"
          ? { annotations: [], logprobs: [], ...part, type: "output_text" }
          : part
      );
    return {
      ...(typeof item.id === "string" ? { id: item.id } : {}),
      type: "message",
      role: item.role,
      content,
      status: "completed",
    };
  }
  return { ...item, status: typeof item.status === "string" ? item.status : "completed" };
}

function items(
  body: Record<string, unknown>,
  references: ReadonlyMap<string, Item>,
): { given: Item[]; paths: string[] } {
  const input = body.input;
  if (input === undefined || input === null) return { given: [], paths: [] };
  if (typeof input === "string") {
    return { given: [{ type: "message", role: "user", content: input }], paths: ["input"] };
  }
  if (!Array.isArray(input)) throw invalid("input", "a string or an array of input items");
  const given: Item[] = [];
  const paths: string[] = [];
  input.forEach((item, i) => {
    const at = `input[${i}]`;
    if (!isObject(item)) throw invalid(at, "an input item object");
    if (item.type === "item_reference") {
      const found = typeof item.id === "string" ? references.get(item.id) : undefined;
      if (found === undefined) {
        throw ServiceError.of(
          "not_found",
          `item not found: '${String(item.id)}' is no item of a response you stored`,
          { path: `${at}.id` },
        );
      }
      given.push(found);
    } else given.push(item);
    paths.push(at);
  });
  return { given, paths };
}

interface Tools {
  specs: ToolSpec[];
  custom: Set<string>;
  hosted: string[];
  echo: Item[];
}

function tools(raw: unknown): Tools {
  const out: Tools = { specs: [], custom: new Set(), hosted: [], echo: [] };
  if (raw === undefined || raw === null) return out;
  if (!Array.isArray(raw)) throw invalid("tools", "an array of tools");
  raw.forEach((t, i) => {
    const at = `tools[${i}]`;
    if (!isObject(t) || typeof t.type !== "string") throw invalid(at, 'a tool {"type", …}');
    if (t.type === "function") {
      if (typeof t.name !== "string" || t.name === "") throw invalid(`${at}.name`, "a tool name");
      const parameters = objectOr(t.parameters, `${at}.parameters`, {
        type: "object",
        properties: {},
      });
      out.specs.push({
        name: t.name,
        description: typeof t.description === "string" ? t.description : "",
        parameters,
      });
      out.echo.push({
        type: "function",
        name: t.name,
        description: typeof t.description === "string" ? t.description : null,
        parameters,
        strict: typeof t.strict === "boolean" ? t.strict : true,
      });
    } else if (t.type === "custom") {
      if (typeof t.name !== "string" || t.name === "") throw invalid(`${at}.name`, "a tool name");
      const format = objectOr(t.format, `${at}.format`, { type: "text" });
      const grammar = format.type === "grammar" && typeof format.definition === "string"
        ? ` It must follow this ${String(format.syntax ?? "")} grammar:\n${format.definition}`
        : "";
      out.custom.add(t.name);
      out.specs.push({
        name: t.name,
        description: typeof t.description === "string" ? t.description : "",
        parameters: {
          type: "object",
          properties: {
            input: { type: "string", description: `The tool's freeform text input.${grammar}` },
          },
          required: ["input"],
          additionalProperties: false,
        },
      });
      out.echo.push(t);
    } else {
      out.hosted.push(t.type);
      out.echo.push(t);
    }
  });
  return out;
}

function toolChoice(raw: unknown, offered: Tools): { choice?: ToolChoice; only?: Set<string> } {
  if (raw === undefined || raw === null) return {};
  if (raw === "auto" || raw === "none" || raw === "required") return { choice: raw };
  if (!isObject(raw) || typeof raw.type !== "string") {
    throw invalid("tool_choice", '"auto", "none", "required" or a tool choice object');
  }
  if (raw.type === "function" || raw.type === "custom") {
    if (typeof raw.name !== "string") throw invalid("tool_choice.name", "a tool name");
    if (!offered.specs.some((s) => s.name === raw.name)) {
      throw invalid("tool_choice.name", `the name of a ${raw.type} tool in tools`);
    }
    return { choice: { name: raw.name } };
  }
  if (raw.type === "allowed_tools") {
    if (raw.mode !== "auto" && raw.mode !== "required") {
      throw invalid("tool_choice.mode", '"auto" or "required"');
    }
    if (!Array.isArray(raw.tools)) throw invalid("tool_choice.tools", "an array of tools");
    const only = new Set(
      raw.tools.flatMap((t) => isObject(t) && typeof t.name === "string" ? [t.name] : []),
    );
    return { choice: raw.mode, only };
  }
  if (HOSTED_CHOICES.has(raw.type) || offered.hosted.includes(raw.type)) {
    throw unsupported(
      "tool_choice",
      `"tool_choice" naming the hosted tool "${raw.type}" (hosted tools are not offered here)`,
    );
  }
  throw invalid("tool_choice", '"auto", "none", "required", a function or a custom tool');
}

function textFormat(raw: unknown): { format?: ResponseFormat; echo: Item } {
  const text = objectOr(raw, "text", {});
  const format = objectOr(text.format, "text.format", { type: "text" });
  if (format.type === "text") return { echo: { type: "text" } };
  if (format.type === "json_object") return { format: { type: "json_object" }, echo: format };
  if (format.type === "json_schema") {
    if (typeof format.name !== "string" || format.name === "") {
      throw invalid("text.format.name", "a schema name");
    }
    const schema = objectOr(format.schema, "text.format.schema", {});
    return {
      format: {
        type: "json_schema",
        name: format.name,
        schema,
        ...(typeof format.strict === "boolean" ? { strict: format.strict } : {}),
      },
      echo: {
        type: "json_schema",
        name: format.name,
        schema,
        strict: format.strict === true,
        ...(typeof format.description === "string" ? { description: format.description } : {}),
      },
    };
  }
  throw invalid("text.format.type", '"text", "json_object" or "json_schema"');
}

function ranged(
  body: Record<string, unknown>,
  field: string,
  min: number,
  max: number,
): number | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isFinite(v)) throw invalid(field, "a number");
  if (v < min || v > max) {
    throw invalid(field, `a number from ${min} to ${max}`);
  }
  return v;
}

function stringOrNull(body: Record<string, unknown>, field: string): string | null {
  const v = body[field];
  if (v === undefined || v === null) return null;
  if (typeof v !== "string") throw invalid(field, "a string");
  return v;
}

function metadata(raw: unknown): Record<string, string> {
  const m = objectOr(raw, "metadata", {});
  const entries = Object.entries(m);
  if (entries.length > 16) throw invalid("metadata", "at most 16 key-value pairs");
  for (const [k, v] of entries) {
    if (typeof v !== "string" || v.length > 512 || k.length > 64) {
      throw invalid(
        `metadata.${k}`,
        "a string of at most 512 characters under a key of at most 64",
      );
    }
  }
  return m as Record<string, string>;
}

/** Fields this API defines that nothing here can honour, with the value that is harmless. */
const REFUSED: readonly [string, (v: unknown) => boolean][] = [
  ["background", (v) => v === false],
  ["prompt", () => false],
  ["top_logprobs", (v) => v === 0],
];

export function responsesRequest(
  body: Record<string, unknown>,
  refs: { previous: StoredResponse | null; items: ReadonlyMap<string, Item> },
): ResponsesRequest {
  if (typeof body.model !== "string" || body.model === "") throw invalid("model", "a model name");
  if (body.conversation !== undefined && body.conversation !== null) {
    throw unsupported(
      "conversation",
      '"conversation" (conversations are sessions here: use previous_response_id, ' +
        "prompt_cache_key or X-Router-Session-Id)",
    );
  }
  for (const [field, harmless] of REFUSED) {
    if (body[field] !== undefined && body[field] !== null && !harmless(body[field])) {
      throw unsupported(field, `"${field}"`);
    }
  }
  for (const field of ["stream", "store", "parallel_tool_calls"]) {
    if (body[field] !== undefined && body[field] !== null && typeof body[field] !== "boolean") {
      throw invalid(field, "a boolean");
    }
  }
  const truncation = body.truncation ?? "disabled";
  if (truncation !== "auto" && truncation !== "disabled") {
    throw invalid("truncation", '"auto" or "disabled"');
  }
  const instructions = stringOrNull(body, "instructions");
  const offered = tools(body.tools);
  const { choice, only } = toolChoice(body.tool_choice, offered);
  const { format, echo: formatEcho } = textFormat(body.text);
  const temperature = ranged(body, "temperature", 0, 2);
  const topP = ranged(body, "top_p", 0, 1);
  const max = body.max_output_tokens === undefined || body.max_output_tokens === null
    ? undefined
    : Number.isInteger(body.max_output_tokens) && (body.max_output_tokens as number) >= 16
    ? body.max_output_tokens as number
    : (() => {
      throw invalid("max_output_tokens", "an integer of at least 16");
    })();
  const reasoning = objectOr(body.reasoning, "reasoning", {});
  const cacheKey = stringOrNull(body, "prompt_cache_key");
  const chainItems = refs.previous?.items ?? [];
  const { given, paths } = items(body, refs.items);
  const { system, messages } = conversation(
    [...chainItems, ...given],
    [...chainItems.map((_, i) => `previous_response_id (item ${i})`), ...paths],
  );
  if (!messages.some((m) => m.role === "user")) {
    throw invalid("input", "at least one user message");
  }
  const sampling: SamplingOptions = {
    ...(temperature === undefined ? {} : { temperature }),
    ...(topP === undefined ? {} : { topP }),
    ...(format === undefined ? {} : { responseFormat: format }),
  };
  const specs = only === undefined ? offered.specs : offered.specs.filter((s) => only.has(s.name));
  const prompt = [...(instructions === null ? [] : [instructions]), ...system];
  return {
    surface: "responses",
    model: body.model,
    system: prompt.length === 0 ? null : prompt.join("\n\n"),
    messages,
    tools: specs,
    ...(choice === undefined ? {} : { toolChoice: choice }),
    ...(Object.keys(sampling).length === 0 ? {} : { sampling }),
    ...(max === undefined ? {} : { maxOutputTokens: max }),
    stream: body.stream === true,
    ...(cacheKey === null || cacheKey === "" ? {} : { conversationKey: cacheKey }),
    ...(refs.previous === null ? {} : { sessionId: refs.previous.session_id }),
    trimming: truncation === "auto",
    ...(offered.hosted.length === 0 ? {} : { notOffered: offered.hosted }),
    fieldOf: (option) => FIELDS[option] ?? option,
    echo: {
      instructions,
      tools: offered.echo,
      tool_choice: body.tool_choice ?? "auto",
      temperature: temperature ?? 1,
      top_p: topP ?? 1,
      parallel_tool_calls: body.parallel_tool_calls !== false,
      max_output_tokens: max ?? null,
      previous_response_id: refs.previous?.id ?? null,
      reasoning: { effort: reasoning.effort ?? null, summary: reasoning.summary ?? null },
      text: { format: formatEcho },
      truncation,
      metadata: metadata(body.metadata),
      store: body.store !== false,
      service_tier: "default",
      user: stringOrNull(body, "user"),
      prompt_cache_key: cacheKey,
    },
    customTools: offered.custom,
    inputItems: given.flatMap((item): Item[] => {
      const stored = storedItem(item);
      return stored === null ? [] : [stored];
    }),
    chainItems,
  };
}
