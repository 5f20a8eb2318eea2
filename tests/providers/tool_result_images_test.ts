/**
 * Images in tool results (a screenshot a coding agent read) in each
 * protocol's own form: OpenAI's Chat Completions takes images only in user
 * messages, so the images of a run of results follow the run in one user
 * message; Anthropic takes them in the tool_result's content; Gemini as inline
 * data after the function response; Ollama as the tool message's `images`. A
 * model without image input gets a note in each image's place.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { imagesAsNotes } from "../../src/engine/image_notes.ts";
import { anthropicMessagesBody } from "../../src/providers/anthropic_messages_request.ts";
import { geminiBody } from "../../src/providers/gemini_request.ts";
import { ollamaBody } from "../../src/providers/ollama_request.ts";
import { openAiChatBody } from "../../src/providers/openai_chat_request.ts";
import type { ChatMessage, CompletionRequest } from "../../src/providers/types.ts";

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const MESSAGES: ChatMessage[] = [
  { role: "user", content: "compare the screenshots" },
  {
    role: "assistant",
    content: "",
    toolCalls: [
      { callId: "c1", name: "Read", arguments: { file_path: "a.png" } },
      { callId: "c2", name: "Read", arguments: { file_path: "b.txt" } },
    ],
  },
  {
    role: "tool",
    callId: "c1",
    content: "",
    isError: false,
    images: [{ data: PNG, mediaType: "image/png" }],
  },
  { role: "tool", callId: "c2", content: "text of b", isError: false },
];
const REQUEST: CompletionRequest = {
  model: "m",
  messages: MESSAGES,
  stream: false,
};

// deno-lint-ignore no-explicit-any
type Any = any;

describe("tool result images on the wire", () => {
  test("OpenAI: after the run of tool messages, one user message with the images", () => {
    const body = openAiChatBody(REQUEST, "openai") as Any;
    assert.deepEqual(body.messages.map((m: Any) => m.role), [
      "user",
      "assistant",
      "tool",
      "tool",
      "user",
    ]);
    assert.equal(body.messages[2].content, "");
    assert.deepEqual(body.messages[4].content, [{
      type: "image_url",
      image_url: { url: `data:image/png;base64,${PNG}` },
    }]);
    // A run that is followed by more conversation gets its images before it.
    const more = openAiChatBody({
      ...REQUEST,
      messages: [...MESSAGES, { role: "assistant", content: "done" }],
    }, "openai") as Any;
    assert.deepEqual(more.messages.map((m: Any) => m.role), [
      "user",
      "assistant",
      "tool",
      "tool",
      "user",
      "assistant",
    ]);
  });

  test("Anthropic: inside the tool_result's content", () => {
    const body = anthropicMessagesBody(REQUEST, "anthropic") as Any;
    const results = body.messages[2].content;
    assert.deepEqual(results[0], {
      type: "tool_result",
      tool_use_id: "c1",
      content: [{
        type: "image",
        source: { type: "base64", media_type: "image/png", data: PNG },
      }],
    });
    assert.deepEqual(results[1], {
      type: "tool_result",
      tool_use_id: "c2",
      content: "text of b",
    });
  });

  test("Gemini: inline data after the function response, in the same turn", () => {
    const body = geminiBody("gemini", REQUEST) as Any;
    const parts = body.contents[2].parts;
    assert.equal(parts[0].functionResponse.name, "Read");
    assert.deepEqual(parts[1], {
      inlineData: { mimeType: "image/png", data: PNG },
    });
    assert.equal(parts[2].functionResponse.response.output, "text of b");
  });

  test("Ollama: the tool message's images", () => {
    const body = ollamaBody(REQUEST) as Any;
    assert.deepEqual(body.messages[2], {
      role: "tool",
      content: "",
      tool_name: "Read",
      images: [PNG],
    });
    assert.equal(body.messages[3].images, undefined);
  });

  test("a model without image input: a note in each image's place, and the list of what was left out", () => {
    const { messages, omitted } = imagesAsNotes([
      ...MESSAGES,
      {
        role: "user",
        content: "and this",
        images: [{ url: "https://example.test/x.png" }],
      },
    ]);
    assert.deepEqual(messages[2], {
      role: "tool",
      callId: "c1",
      content: "[image omitted: image/png, 70 bytes]",
      isError: false,
    });
    assert.deepEqual(messages[4], {
      role: "user",
      content: "and this\n[image omitted: image by URL]",
    });
    assert.deepEqual(omitted, [
      { message: 3, media_type: "image/png", bytes: 70 },
      { message: 5, media_type: null, bytes: null },
    ]);
    // Messages without images are the same objects.
    assert.equal(messages[0], MESSAGES[0]);
  });
});
