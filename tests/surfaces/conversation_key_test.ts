/**
 * The conversation key a client sends, as each surface reads it (decisions.md
 * §12 "Which session"), and the native body a conversation equals ("A
 * compatible turn equals a native turn"), as plain data.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, test } from "node:test";
import {
  anthropicMessagesRequest,
  metadataSessionKey,
} from "../../src/surfaces/anthropic_request.ts";
import { equivalentBody, madeUpPaths } from "../../src/surfaces/equivalent_body.ts";
import { openAiChatRequest } from "../../src/surfaces/openai_request.ts";

const SESSION = "34832e57-9b65-4df6-9604-60b9fc786bcb";

describe("conversation keys", () => {
  test("Claude Code's metadata.user_id: the session part of each form it has sent", () => {
    const table: [unknown, string | null][] = [
      [{
        user_id: `user_${
          "19f2".repeat(16)
        }_account_a929b7ef-d758-4a98-b88e-07166e6c8537_session_${SESSION}`,
      }, SESSION],
      // An API-key user has no account: the part is empty.
      [
        { user_id: `user_${"19f2".repeat(16)}_account__session_${SESSION}` },
        SESSION,
      ],
      [{
        user_id: JSON.stringify({
          device_id: "ab",
          account_uuid: "",
          session_id: SESSION,
        }),
      }, SESSION],
      [{ user_id: { session_id: SESSION } }, SESSION],
      // A user id names a user, not a conversation.
      [{ user_id: "user-42" }, null],
      [{ user_id: JSON.stringify({ device_id: "ab" }) }, null],
      [{ user_id: "{not json" }, null],
      [{ user_id: 7 }, null],
      [{}, null],
      [undefined, null],
    ];
    for (const [metadata, key] of table) {
      assert.equal(metadataSessionKey(metadata), key, JSON.stringify(metadata));
    }
    const request = anthropicMessagesRequest({
      model: "switchyard",
      max_tokens: 10,
      messages: [{ role: "user", content: "hi" }],
      metadata: { user_id: JSON.stringify({ session_id: SESSION }) },
    });
    assert.equal(request.conversationKey, SESSION);
  });

  test("OpenAI's prompt_cache_key; an empty one is none, another type a 400", () => {
    const ask = (key: unknown) =>
      openAiChatRequest({
        model: "switchyard",
        messages: [{ role: "user", content: "hi" }],
        prompt_cache_key: key,
      });
    assert.equal(ask("codex-1").conversationKey, "codex-1");
    assert.equal(ask("").conversationKey, undefined);
    assert.equal(ask(undefined).conversationKey, undefined);
    assert.throws(
      () => ask(12),
      (e: { failure?: { details?: { path?: string } } }) =>
        e.failure?.details?.path === "prompt_cache_key",
    );
  });
});

describe("the equivalent native body", () => {
  test("own text, paths in order of first appearance, results after the last user message as files", () => {
    const hash = (s: string) => `sha256:${createHash("sha256").update(s).digest("hex")}`;
    const body = equivalentBody([
      { role: "user", content: "read things" },
      {
        role: "assistant",
        content: "",
        toolCalls: [{
          callId: "a",
          name: "Read",
          arguments: { file_path: "src/x.ts" },
        }],
      },
      { role: "tool", callId: "a", content: "x", isError: false },
      {
        role: "user",
        content: "<system-reminder>noise</system-reminder>\nreview it",
      },
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { callId: "b", name: "Bash", arguments: { command: "ls" } },
          {
            callId: "c",
            name: "Glob",
            arguments: { paths: ["src/y.ts", "src/x.ts"] },
          },
          { callId: "d", name: "Bash", arguments: { command: "pwd" } },
        ],
      },
      { role: "tool", callId: "b", content: "a b", isError: false },
      { role: "tool", callId: "c", content: "src/y.ts", isError: false },
      { role: "tool", callId: "d", content: "/w", isError: true },
    ], "openai/gpt-4o");
    assert.deepEqual(body, {
      input: { text: "review it", explicit_model: "openai/gpt-4o" },
      workspace: { referenced_paths: ["src/x.ts", "src/y.ts"] },
      attachments: {
        files: [
          {
            path: "tool-results/Bash-1",
            content: "a b",
            content_hash: hash("a b"),
            required: true,
          },
          {
            path: "src/y.ts",
            content: "src/y.ts",
            content_hash: hash("src/y.ts"),
            required: true,
          },
          {
            path: "tool-results/Bash-2",
            content: "/w",
            content_hash: hash("/w"),
            required: true,
          },
        ],
        instructions: [],
      },
    });
    assert.deepEqual([...madeUpPaths(body!)], [
      "tool-results/Bash-1",
      "tool-results/Bash-2",
    ]);
    assert.equal(
      equivalentBody([{ role: "assistant", content: "x" }], null),
      null,
    );
  });
});
