/**
 * Which of the client's request options each wire protocol can honour, as a
 * table (field → supported, and within what bounds), so a compatible surface
 * answers 400 naming the field before any call (decisions.md §12) and an
 * adapter refuses what it would otherwise drop. Bounds are each provider's
 * documented ones; a model's own narrower limits are the provider's to report.
 */
import { anthropicThinkingBudget } from "./anthropic_messages_request.ts";
import { ProviderError } from "./errors.ts";
import { isRemoteImage } from "./image_parts.ts";
import type { WireProtocol } from "./registry.ts";
import type { CompletionRequest, ResponseFormat, ToolChoice } from "./types.ts";

/** The neutral option names, in the order a request is checked. */
export const REQUEST_OPTIONS = [
  "seed",
  "response_format",
  "tool_choice",
  "image_url",
  "stop",
  "top_p",
  "temperature",
] as const;
export type RequestOption = typeof REQUEST_OPTIONS[number];

type ToolChoiceKind = "auto" | "none" | "required" | "named";

interface Range {
  readonly min: number;
  readonly max: number;
}

/** One protocol's row: `false` refuses the option outright. */
interface OptionSupport {
  readonly seed: boolean;
  readonly response_format: readonly ResponseFormat["type"][];
  readonly tool_choice: readonly ToolChoiceKind[];
  /** A remote image URL (inline images and `data:` URLs go everywhere). */
  readonly image_url: boolean;
  readonly stop: { readonly maxItems: number } | false;
  readonly top_p: Range | false;
  readonly temperature: Range | false;
}

interface ProtocolSupport extends OptionSupport {
  /** What changes while extended thinking is on (the request's effort enables it). */
  readonly thinking?: Partial<OptionSupport>;
}

const ALL_FORMATS = ["text", "json_object", "json_schema"] as const;
const ALL_CHOICES = ["auto", "none", "required", "named"] as const;
const UNIT = { min: 0, max: 1 } as const;

export const REQUEST_SUPPORT: Readonly<Record<WireProtocol, ProtocolSupport>> = {
  // Chat Completions: `stop` takes up to 4 sequences; temperature 0–2.
  openai: {
    seed: true,
    response_format: ALL_FORMATS,
    tool_choice: ALL_CHOICES,
    image_url: true,
    stop: { maxItems: 4 },
    top_p: UNIT,
    temperature: { min: 0, max: 2 },
  },
  // Messages: no seed and no response format; temperature 0–1. Extended
  // thinking allows temperature 1 only, top_p 0.95–1 and no forced tool use.
  anthropic: {
    seed: false,
    response_format: ["text"],
    tool_choice: ALL_CHOICES,
    image_url: true,
    stop: { maxItems: Infinity },
    top_p: UNIT,
    temperature: UNIT,
    thinking: {
      tool_choice: ["auto", "none"],
      top_p: { min: 0.95, max: 1 },
      temperature: { min: 1, max: 1 },
    },
  },
  // generateContent: up to 5 stop sequences; images inline only (a fileData
  // part needs an uploaded file's URI and its media type).
  gemini: {
    seed: true,
    response_format: ALL_FORMATS,
    tool_choice: ALL_CHOICES,
    image_url: false,
    stop: { maxItems: 5 },
    top_p: UNIT,
    temperature: { min: 0, max: 2 },
  },
  // /api/chat: images are base64 only; no way to force a tool call.
  ollama: {
    seed: true,
    response_format: ALL_FORMATS,
    tool_choice: ["auto", "none"],
    image_url: false,
    stop: { maxItems: Infinity },
    top_p: UNIT,
    temperature: { min: 0, max: Infinity },
  },
};

function choiceKind(choice: ToolChoice): ToolChoiceKind {
  return typeof choice === "string" ? choice : "named";
}

const inRange = (range: Range | false, value: number | undefined) =>
  value === undefined || (range !== false && value >= range.min && value <= range.max);

/** Whether `row` honours `option` as `request` uses it (an unused option always is). */
const HONOURED: Record<RequestOption, (row: OptionSupport, request: CompletionRequest) => boolean> =
  {
    seed: (row, request) => request.sampling?.seed === undefined || row.seed,
    response_format: (row, request) => {
      const format = request.sampling?.responseFormat;
      return format === undefined || row.response_format.includes(format.type);
    },
    tool_choice: (row, request) =>
      request.toolChoice === undefined || row.tool_choice.includes(choiceKind(request.toolChoice)),
    image_url: (row, request) =>
      row.image_url ||
      !request.messages.some((message) =>
        (message.role === "user" || message.role === "tool") &&
        (message.images ?? []).some(isRemoteImage)
      ),
    stop: (row, request) => {
      const count = request.sampling?.stop?.length ?? 0;
      return count === 0 || (row.stop !== false && count <= row.stop.maxItems);
    },
    top_p: (row, request) => inRange(row.top_p, request.sampling?.topP),
    temperature: (row, request) => inRange(row.temperature, request.sampling?.temperature),
  };

function rowFor(protocol: WireProtocol, request: CompletionRequest): OptionSupport {
  const support = REQUEST_SUPPORT[protocol];
  const thinking = protocol === "anthropic" && anthropicThinkingBudget(request) !== undefined;
  return thinking && support.thinking ? { ...support, ...support.thinking } : support;
}

/** The first option `request` uses that `protocol` cannot honour, or null. */
export function unsupportedOption(
  protocol: WireProtocol,
  request: CompletionRequest,
): RequestOption | null {
  const row = rowFor(protocol, request);
  return REQUEST_OPTIONS.find((option) => !HONOURED[option](row, request)) ?? null;
}

export function unsupportedOptionMessage(provider: string, option: RequestOption): string {
  return `${provider} cannot honour the request option "${option}": ` +
    "its API has no equivalent for this value; leave it out or choose another model";
}

/** An adapter's guard: what it cannot honour is refused, never silently dropped. */
export function refuseUnsupported(
  protocol: WireProtocol,
  request: CompletionRequest,
  provider: string,
): void {
  const option = unsupportedOption(protocol, request);
  if (option === null) return;
  throw new ProviderError(
    "unsupported_capability",
    unsupportedOptionMessage(provider, option),
    provider,
  );
}
