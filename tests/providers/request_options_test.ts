/**
 * The request options the compatible surfaces pass through (tool choice,
 * sampling, response format, images) as each protocol's wire body carries
 * them, and the table of what each protocol refuses. Pure: no network.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { anthropicMessagesBody } from "../../src/providers/anthropic_messages_request.ts";
import { anthropicMessagesAdapter } from "../../src/providers/anthropic_messages.ts";
import { geminiAdapter } from "../../src/providers/gemini.ts";
import { geminiBody } from "../../src/providers/gemini_request.ts";
import { ollamaAdapter } from "../../src/providers/ollama.ts";
import { ollamaBody } from "../../src/providers/ollama_request.ts";
import { openAiChatAdapter } from "../../src/providers/openai_chat.ts";
import { openAiChatBody } from "../../src/providers/openai_chat_request.ts";
import { ProviderError } from "../../src/providers/errors.ts";
import type { WireProtocol } from "../../src/providers/registry.ts";
import {
  REQUEST_OPTIONS,
  type RequestOption,
  unsupportedOption,
  unsupportedOptionMessage,
} from "../../src/providers/request_support.ts";
import type {
  CompletionRequest,
  ImagePart,
  ProviderAdapter,
  SamplingOptions,
} from "../../src/providers/types.ts";

const PROTOCOLS: readonly WireProtocol[] = [
  "openai",
  "anthropic",
  "gemini",
  "ollama",
];

const BODY: Record<
  WireProtocol,
  (request: CompletionRequest) => Record<string, unknown>
> = {
  openai: (request) => openAiChatBody(request, "openai"),
  anthropic: (request) => anthropicMessagesBody(request, "anthropic"),
  gemini: (request) => geminiBody("gemini", request),
  ollama: (request) => ollamaBody(request),
};

const ADAPTER: Record<WireProtocol, ProviderAdapter> = {
  openai: openAiChatAdapter,
  anthropic: anthropicMessagesAdapter,
  gemini: geminiAdapter,
  ollama: ollamaAdapter,
};

const READ_FILE = {
  name: "read_file",
  description: "Read a file from the workspace",
  parameters: {
    type: "object",
    properties: { path: { type: "string" } },
    required: ["path"],
  },
};

const BASE: CompletionRequest = {
  model: "m",
  system: "Be brief.",
  messages: [{ role: "user", content: "Describe this." }],
  tools: [READ_FILE],
  stream: false,
};

const SCHEMA = { type: "object", properties: { answer: { type: "string" } } };
const PNG = "iVBORw0KGgoAAAANSUhEUg";
const JPEG = "/9j/4AAQSkZJRg";

function withSampling(sampling: SamplingOptions): CompletionRequest {
  return { ...BASE, sampling };
}

function withImages(
  images: ImagePart[],
  content = "Describe this.",
): CompletionRequest {
  return { ...BASE, messages: [{ role: "user", content, images }] };
}

/**
 * One option on one protocol: `wire` is what the body gains (a top-level key
 * replaced whole), `drops` what it loses; every other byte stays the base's.
 */
interface WireCase {
  readonly name: string;
  readonly request: CompletionRequest;
  readonly wire: Record<string, unknown>;
  readonly drops?: readonly string[];
}

const SAMPLING = {
  temperature: 0.2,
  topP: 0.9,
  stop: ["END", "STOP"],
  seed: 7,
} as const;

const CASES: Record<WireProtocol, readonly WireCase[]> = {
  openai: [
    {
      name: "temperature",
      request: withSampling({ temperature: 0.2 }),
      wire: { temperature: 0.2 },
    },
    {
      name: "top_p",
      request: withSampling({ topP: 0.9 }),
      wire: { top_p: 0.9 },
    },
    {
      name: "stop",
      request: withSampling({ stop: ["END"] }),
      wire: { stop: ["END"] },
    },
    { name: "seed", request: withSampling({ seed: 7 }), wire: { seed: 7 } },
    {
      name: "every sampling field",
      request: withSampling(SAMPLING),
      wire: { temperature: 0.2, top_p: 0.9, stop: ["END", "STOP"], seed: 7 },
    },
    {
      name: "response format text",
      request: withSampling({ responseFormat: { type: "text" } }),
      wire: { response_format: { type: "text" } },
    },
    {
      name: "response format json_object",
      request: withSampling({ responseFormat: { type: "json_object" } }),
      wire: { response_format: { type: "json_object" } },
    },
    {
      name: "response format json_schema",
      request: withSampling({
        responseFormat: {
          type: "json_schema",
          name: "reply",
          schema: SCHEMA,
          strict: true,
        },
      }),
      wire: {
        response_format: {
          type: "json_schema",
          json_schema: { name: "reply", schema: SCHEMA, strict: true },
        },
      },
    },
    {
      name: "response format json_schema without strict",
      request: withSampling({
        responseFormat: { type: "json_schema", name: "r", schema: SCHEMA },
      }),
      wire: {
        response_format: {
          type: "json_schema",
          json_schema: { name: "r", schema: SCHEMA },
        },
      },
    },
    {
      name: "tool choice auto",
      request: { ...BASE, toolChoice: "auto" },
      wire: { tool_choice: "auto" },
    },
    {
      name: "tool choice none",
      request: { ...BASE, toolChoice: "none" },
      wire: { tool_choice: "none" },
    },
    {
      name: "tool choice required",
      request: { ...BASE, toolChoice: "required" },
      wire: { tool_choice: "required" },
    },
    {
      name: "tool choice named",
      request: { ...BASE, toolChoice: { name: "read_file" } },
      wire: {
        tool_choice: { type: "function", function: { name: "read_file" } },
      },
    },
    {
      name: "tool choice without tools",
      request: { ...BASE, tools: undefined, toolChoice: "required" },
      wire: {},
      drops: ["tools"],
    },
    {
      name: "images",
      request: withImages([
        { mediaType: "image/png", data: PNG },
        { url: "https://example.com/cat.jpg" },
      ]),
      wire: {
        messages: [
          { role: "system", content: "Be brief." },
          {
            role: "user",
            content: [
              { type: "text", text: "Describe this." },
              {
                type: "image_url",
                image_url: { url: `data:image/png;base64,${PNG}` },
              },
              {
                type: "image_url",
                image_url: { url: "https://example.com/cat.jpg" },
              },
            ],
          },
        ],
      },
    },
  ],
  anthropic: [
    {
      name: "temperature",
      request: withSampling({ temperature: 0.2 }),
      wire: { temperature: 0.2 },
    },
    {
      name: "top_p",
      request: withSampling({ topP: 0.9 }),
      wire: { top_p: 0.9 },
    },
    {
      name: "stop",
      request: withSampling({ stop: ["END", "STOP"] }),
      wire: { stop_sequences: ["END", "STOP"] },
    },
    {
      name: "response format text (the default: nothing to send)",
      request: withSampling({ responseFormat: { type: "text" } }),
      wire: {},
    },
    {
      name: "tool choice auto",
      request: { ...BASE, toolChoice: "auto" },
      wire: { tool_choice: { type: "auto" } },
    },
    {
      name: "tool choice none",
      request: { ...BASE, toolChoice: "none" },
      wire: { tool_choice: { type: "none" } },
    },
    {
      name: "tool choice required",
      request: { ...BASE, toolChoice: "required" },
      wire: { tool_choice: { type: "any" } },
    },
    {
      name: "tool choice named",
      request: { ...BASE, toolChoice: { name: "read_file" } },
      wire: { tool_choice: { type: "tool", name: "read_file" } },
    },
    {
      name: "images",
      request: withImages([
        { mediaType: "image/png", data: PNG },
        { url: "https://example.com/cat.jpg" },
      ]),
      wire: {
        messages: [{
          role: "user",
          content: [
            { type: "text", text: "Describe this." },
            {
              type: "image",
              source: { type: "base64", media_type: "image/png", data: PNG },
            },
            {
              type: "image",
              source: { type: "url", url: "https://example.com/cat.jpg" },
            },
          ],
        }],
      },
    },
    {
      name: "an image alone, a data URL and a sniffed media type",
      request: withImages([{ url: `data:image/webp;base64,UklGRxyz` }, {
        data: JPEG,
      }], ""),
      wire: {
        messages: [{
          role: "user",
          content: [
            {
              type: "image",
              source: {
                type: "base64",
                media_type: "image/webp",
                data: "UklGRxyz",
              },
            },
            {
              type: "image",
              source: { type: "base64", media_type: "image/jpeg", data: JPEG },
            },
          ],
        }],
      },
    },
  ],
  gemini: [
    {
      name: "temperature",
      request: withSampling({ temperature: 0.2 }),
      wire: { generationConfig: { temperature: 0.2 } },
    },
    {
      name: "top_p",
      request: withSampling({ topP: 0.9 }),
      wire: { generationConfig: { topP: 0.9 } },
    },
    {
      name: "stop",
      request: withSampling({ stop: ["END"] }),
      wire: { generationConfig: { stopSequences: ["END"] } },
    },
    {
      name: "seed",
      request: withSampling({ seed: 7 }),
      wire: { generationConfig: { seed: 7 } },
    },
    {
      name: "every sampling field beside the output limit",
      request: { ...withSampling(SAMPLING), maxOutputTokens: 512 },
      wire: {
        generationConfig: {
          maxOutputTokens: 512,
          temperature: 0.2,
          topP: 0.9,
          stopSequences: ["END", "STOP"],
          seed: 7,
        },
      },
    },
    {
      name: "response format text (the default: nothing to send)",
      request: withSampling({ responseFormat: { type: "text" } }),
      wire: {},
    },
    {
      name: "response format json_object",
      request: withSampling({ responseFormat: { type: "json_object" } }),
      wire: { generationConfig: { responseMimeType: "application/json" } },
    },
    {
      name: "response format json_schema",
      request: withSampling({
        responseFormat: {
          type: "json_schema",
          name: "reply",
          schema: SCHEMA,
          strict: true,
        },
      }),
      wire: {
        generationConfig: {
          responseMimeType: "application/json",
          responseJsonSchema: SCHEMA,
        },
      },
    },
    {
      name: "tool choice auto",
      request: { ...BASE, toolChoice: "auto" },
      wire: { toolConfig: { functionCallingConfig: { mode: "AUTO" } } },
    },
    {
      name: "tool choice none",
      request: { ...BASE, toolChoice: "none" },
      wire: { toolConfig: { functionCallingConfig: { mode: "NONE" } } },
    },
    {
      name: "tool choice required",
      request: { ...BASE, toolChoice: "required" },
      wire: { toolConfig: { functionCallingConfig: { mode: "ANY" } } },
    },
    {
      name: "tool choice named",
      request: { ...BASE, toolChoice: { name: "read_file" } },
      wire: {
        toolConfig: {
          functionCallingConfig: {
            mode: "ANY",
            allowedFunctionNames: ["read_file"],
          },
        },
      },
    },
    {
      name: "images",
      request: withImages([{ mediaType: "image/png", data: PNG }, {
        data: JPEG,
      }]),
      wire: {
        contents: [{
          role: "user",
          parts: [
            { text: "Describe this." },
            { inlineData: { mimeType: "image/png", data: PNG } },
            { inlineData: { mimeType: "image/jpeg", data: JPEG } },
          ],
        }],
      },
    },
  ],
  ollama: [
    {
      name: "temperature",
      request: withSampling({ temperature: 0.2 }),
      wire: { options: { temperature: 0.2 } },
    },
    {
      name: "top_p",
      request: withSampling({ topP: 0.9 }),
      wire: { options: { top_p: 0.9 } },
    },
    {
      name: "stop",
      request: withSampling({ stop: ["END"] }),
      wire: { options: { stop: ["END"] } },
    },
    {
      name: "seed",
      request: withSampling({ seed: 7 }),
      wire: { options: { seed: 7 } },
    },
    {
      name: "every sampling field beside the window and output limit",
      request: {
        ...withSampling(SAMPLING),
        contextWindow: 8192,
        maxOutputTokens: 512,
      },
      wire: {
        options: {
          num_ctx: 8192,
          num_predict: 512,
          temperature: 0.2,
          top_p: 0.9,
          stop: ["END", "STOP"],
          seed: 7,
        },
      },
    },
    {
      name: "response format text (the default: nothing to send)",
      request: withSampling({ responseFormat: { type: "text" } }),
      wire: {},
    },
    {
      name: "response format json_object",
      request: withSampling({ responseFormat: { type: "json_object" } }),
      wire: { format: "json" },
    },
    {
      name: "response format json_schema",
      request: withSampling({
        responseFormat: { type: "json_schema", name: "r", schema: SCHEMA },
      }),
      wire: { format: SCHEMA },
    },
    {
      name: "tool choice auto",
      request: { ...BASE, toolChoice: "auto" },
      wire: {},
    },
    {
      name: "tool choice none offers no tool",
      request: { ...BASE, toolChoice: "none" },
      wire: {},
      drops: ["tools"],
    },
    {
      name: "images",
      request: withImages([{ mediaType: "image/png", data: PNG }, {
        data: JPEG,
      }]),
      wire: {
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "Describe this.", images: [PNG, JPEG] },
        ],
      },
    },
  ],
};

function expectedBody(
  protocol: WireProtocol,
  wireCase: WireCase,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    ...BODY[protocol](BASE),
    ...wireCase.wire,
  };
  for (const key of wireCase.drops ?? []) delete body[key];
  return body;
}

describe("request options on the wire", () => {
  for (const protocol of PROTOCOLS) {
    for (const wireCase of CASES[protocol]) {
      test(`${protocol} body carries ${wireCase.name}`, () => {
        assert.equal(unsupportedOption(protocol, wireCase.request), null);
        assert.deepEqual(
          BODY[protocol](wireCase.request),
          expectedBody(protocol, wireCase),
        );
      });
    }

    test(`${protocol} body is byte-identical when no option is used`, () => {
      const untouched: CompletionRequest = {
        ...BASE,
        sampling: {},
        messages: [{ role: "user", content: "Describe this.", images: [] }],
      };
      assert.equal(
        JSON.stringify(BODY[protocol](untouched)),
        JSON.stringify(BODY[protocol](BASE)),
      );
    });
  }

  test("anthropic body keeps the required max_tokens beside sampling", () => {
    const body = anthropicMessagesBody(
      withSampling({ temperature: 0.5 }),
      "anthropic",
    );
    assert.equal(body.max_tokens, 4096);
    assert.equal(body.temperature, 0.5);
  });

  test("anthropic body sends temperature 1 beside extended thinking", () => {
    const request: CompletionRequest = {
      ...withSampling({ temperature: 1 }),
      effort: "low",
    };
    assert.equal(unsupportedOption("anthropic", request), null);
    const body = anthropicMessagesBody(request, "anthropic");
    assert.deepEqual(body.thinking, { type: "enabled", budget_tokens: 1024 });
    assert.equal(body.temperature, 1);
  });
});

/** One row: the option the request uses, and what each protocol answers (null: honoured). */
interface SupportRow {
  readonly name: string;
  readonly request: CompletionRequest;
  readonly refused: Record<WireProtocol, RequestOption | null>;
}

const HONOURED_EVERYWHERE = {
  openai: null,
  anthropic: null,
  gemini: null,
  ollama: null,
} as const;

const SUPPORT_ROWS: readonly SupportRow[] = [
  { name: "no option", request: BASE, refused: HONOURED_EVERYWHERE },
  {
    name: "seed",
    request: withSampling({ seed: 1 }),
    refused: { ...HONOURED_EVERYWHERE, anthropic: "seed" },
  },
  {
    name: "response format text",
    request: withSampling({ responseFormat: { type: "text" } }),
    refused: HONOURED_EVERYWHERE,
  },
  {
    name: "response format json_object",
    request: withSampling({ responseFormat: { type: "json_object" } }),
    refused: { ...HONOURED_EVERYWHERE, anthropic: "response_format" },
  },
  {
    name: "response format json_schema",
    request: withSampling({
      responseFormat: { type: "json_schema", name: "r", schema: SCHEMA },
    }),
    refused: { ...HONOURED_EVERYWHERE, anthropic: "response_format" },
  },
  {
    name: "tool choice auto",
    request: { ...BASE, toolChoice: "auto" },
    refused: HONOURED_EVERYWHERE,
  },
  {
    name: "tool choice none",
    request: { ...BASE, toolChoice: "none" },
    refused: HONOURED_EVERYWHERE,
  },
  {
    name: "tool choice required",
    request: { ...BASE, toolChoice: "required" },
    refused: { ...HONOURED_EVERYWHERE, ollama: "tool_choice" },
  },
  {
    name: "tool choice named",
    request: { ...BASE, toolChoice: { name: "read_file" } },
    refused: { ...HONOURED_EVERYWHERE, ollama: "tool_choice" },
  },
  {
    name: "an inline image",
    request: withImages([{ mediaType: "image/png", data: PNG }]),
    refused: HONOURED_EVERYWHERE,
  },
  {
    name: "an image as a data URL",
    request: withImages([{ url: `data:image/png;base64,${PNG}` }]),
    refused: HONOURED_EVERYWHERE,
  },
  {
    name: "an image by remote URL",
    request: withImages([{ url: "https://example.com/cat.jpg" }]),
    refused: {
      ...HONOURED_EVERYWHERE,
      gemini: "image_url",
      ollama: "image_url",
    },
  },
  {
    name: "four stop sequences",
    request: withSampling({ stop: ["a", "b", "c", "d"] }),
    refused: HONOURED_EVERYWHERE,
  },
  {
    name: "five stop sequences",
    request: withSampling({ stop: ["a", "b", "c", "d", "e"] }),
    refused: { ...HONOURED_EVERYWHERE, openai: "stop" },
  },
  {
    name: "six stop sequences",
    request: withSampling({ stop: ["a", "b", "c", "d", "e", "f"] }),
    refused: { ...HONOURED_EVERYWHERE, openai: "stop", gemini: "stop" },
  },
  {
    name: "top_p 0.5",
    request: withSampling({ topP: 0.5 }),
    refused: HONOURED_EVERYWHERE,
  },
  {
    name: "top_p above 1",
    request: withSampling({ topP: 1.5 }),
    refused: {
      openai: "top_p",
      anthropic: "top_p",
      gemini: "top_p",
      ollama: "top_p",
    },
  },
  {
    name: "temperature 1",
    request: withSampling({ temperature: 1 }),
    refused: HONOURED_EVERYWHERE,
  },
  {
    name: "temperature 1.5",
    request: withSampling({ temperature: 1.5 }),
    refused: { ...HONOURED_EVERYWHERE, anthropic: "temperature" },
  },
  {
    name: "temperature 3",
    request: withSampling({ temperature: 3 }),
    refused: {
      openai: "temperature",
      anthropic: "temperature",
      gemini: "temperature",
      ollama: null,
    },
  },
  {
    name: "negative temperature",
    request: withSampling({ temperature: -0.1 }),
    refused: {
      openai: "temperature",
      anthropic: "temperature",
      gemini: "temperature",
      ollama: "temperature",
    },
  },
  {
    name: "forced tool use beside extended thinking",
    request: {
      ...BASE,
      effort: "high",
      maxOutputTokens: 32000,
      toolChoice: "required",
    },
    refused: {
      ...HONOURED_EVERYWHERE,
      anthropic: "tool_choice",
      ollama: "tool_choice",
    },
  },
  {
    name: "temperature 0.5 beside extended thinking",
    request: {
      ...withSampling({ temperature: 0.5 }),
      effort: "medium",
      maxOutputTokens: 8192,
    },
    refused: { ...HONOURED_EVERYWHERE, anthropic: "temperature" },
  },
  {
    name: "top_p 0.9 beside extended thinking",
    request: { ...withSampling({ topP: 0.9 }), effort: "medium" },
    refused: { ...HONOURED_EVERYWHERE, anthropic: "top_p" },
  },
  {
    name: "top_p 0.95 beside extended thinking",
    request: { ...withSampling({ topP: 0.95 }), effort: "medium" },
    refused: HONOURED_EVERYWHERE,
  },
  {
    // A window too small for the smallest budget sends no thinking, so nothing is restricted.
    name: "temperature 0.5 with an effort too small to think",
    request: {
      ...withSampling({ temperature: 0.5 }),
      effort: "low",
      maxOutputTokens: 1000,
    },
    refused: HONOURED_EVERYWHERE,
  },
  {
    name: "seed and temperature 3 together (the first in check order is named)",
    request: withSampling({ seed: 1, temperature: 3 }),
    refused: {
      openai: "temperature",
      anthropic: "seed",
      gemini: "temperature",
      ollama: null,
    },
  },
];

describe("request options each protocol refuses", () => {
  for (const row of SUPPORT_ROWS) {
    for (const protocol of PROTOCOLS) {
      const refused = row.refused[protocol];
      test(`${protocol} ${refused === null ? "honours" : `refuses "${refused}" for`} ${row.name}`, () => {
        assert.equal(unsupportedOption(protocol, row.request), refused);
      });
    }
  }

  test("the refused names are the neutral option names", () => {
    assert.deepEqual([...REQUEST_OPTIONS].sort(), [
      "image_url",
      "response_format",
      "seed",
      "stop",
      "temperature",
      "tool_choice",
      "top_p",
    ]);
  });

  for (const protocol of PROTOCOLS) {
    test(`${protocol} adapter refuses an option it cannot honour before any call`, async () => {
      const refusedHere = (candidate: SupportRow) => candidate.refused[protocol] !== null;
      const row = SUPPORT_ROWS.find(refusedHere)!;
      const option = row.refused[protocol]!;
      // Nothing listens on port 9: reaching the network would fail as unavailable instead.
      const target = {
        provider: protocol,
        baseUrl: "http://127.0.0.1:9",
        timeoutMs: 1000,
      };
      const events = ADAPTER[protocol].invoke(target, row.request)
        [Symbol.asyncIterator]();
      await assert.rejects(events.next(), (error: unknown) => {
        assert.ok(error instanceof ProviderError);
        assert.equal(error.category, "unsupported_capability");
        assert.equal(error.message, unsupportedOptionMessage(protocol, option));
        return true;
      });
    });
  }
});
