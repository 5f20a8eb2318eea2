/**
 * Encrypted sessions driven by @switchyard/client: the driver seals the prompt,
 * the tool results and everything handed out in `to_encrypt`, opens sealed
 * history when asked, and the database holds none of the canaries that the
 * provider did receive.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import {
  createSessionKey,
  exportSessionKey,
  importSessionKey,
  open,
  type SessionKey,
  SwitchyardError,
} from "../../clients/typescript/src/index.ts";
import { dumpDatabase } from "../support/db_dump.ts";
import { openAiReply, openAiStream, openAiToolCallStream } from "../support/engine_app.ts";
import { clientHarness, clientPolicy } from "../support/client_harness.ts";

const h = clientHarness();
const policy = clientPolicy;
let key: SessionKey;
before(async () => {
  key = await createSessionKey();
});

async function assertSealedAtRest(canaries: string[], replies: string[]): Promise<void> {
  const sent = h.openai.requests.map((r) => r.body).join("\n");
  for (const canary of canaries) {
    assert.ok(sent.includes(canary), `the provider received ${canary}`);
  }
  const dump = await dumpDatabase(h.app.db);
  for (const canary of [...canaries, ...replies]) {
    assert.equal(dump.includes(canary), false, `${canary} is stored readable`);
  }
}

describe("encrypted sessions through the client", () => {
  test("a streamed run with a tool call and an ask call, then a run on its sealed history", async () => {
    const created = await h.client.sessions.create({ title: "sealed" }, { key });
    assert.equal(created.encrypted, true);
    assert.equal(created.key_id, key.keyId);
    const session = h.client.session(created.id, { key });
    h.openai.requests.length = 0;
    h.openai.enqueue(openAiToolCallStream("read_file", { path: "src/ARG_ALPHA11.ts" }));
    h.openai.enqueue(openAiToolCallStream("shell", { command: "echo ARG_BRAVO22" }));
    h.openai.enqueue(openAiStream(["ANSWER_", "CHARLIE33"]));
    const asked: string[] = [];
    const first = await session.run("PROMPT_DELTA44 read it", {
      policy,
      onToolCall: (call) => (call.name === "read_file" ? "RESULT_ECHO55" : "RESULT_FOXTROT66"),
      onApproval: (request) => (asked.push(request.kind), true),
    });
    assert.equal(first.status, "completed");
    assert.equal(first.message?.content, "ANSWER_CHARLIE33");
    assert.deepEqual(asked, ["tool_call"]);

    h.openai.enqueue(openAiReply({ text: "ANSWER_GOLF77" }));
    const second = await session.run("PROMPT_HOTEL88 and again", { policy, stream: false });
    assert.equal(second.message?.content, "ANSWER_GOLF77");
    const lastSent = JSON.stringify(h.openai.requests.at(-1)!.json);
    for (const past of ["PROMPT_DELTA44", "ANSWER_CHARLIE33", "PROMPT_HOTEL88"]) {
      assert.ok(lastSent.includes(past), `the opened ${past} reached the model`);
    }

    const messages = await session.messages();
    assert.deepEqual(messages.map((m) => m.text), [
      "PROMPT_DELTA44 read it",
      "ANSWER_CHARLIE33",
      "PROMPT_HOTEL88 and again",
      "ANSWER_GOLF77",
    ]);
    const detail = await session.get();
    assert.ok(detail.messages.every((m) => "encrypted" in m.content));
    const traces = await session.traces({ limit: 500 });
    assert.ok(traces.events.length > 10);
    assert.ok(traces.events.every((e) => "encrypted" in e.payload), "every trace payload sealed");
    await assertSealedAtRest(
      [
        "PROMPT_DELTA44",
        "ARG_ALPHA11",
        "ARG_BRAVO22",
        "RESULT_ECHO55",
        "RESULT_FOXTROT66",
        "ANSWER_CHARLIE33",
        "PROMPT_HOTEL88",
      ],
      ["ANSWER_GOLF77"],
    );
  });

  test("break on an encrypted streaming turn seals the partial before the run is idle", async () => {
    const session = h.client.session((await h.client.sessions.create({ title: "b" }, { key })).id, {
      key,
    });
    h.openai.enqueue(openAiStream(["PARTIAL_INDIA99 ", "two ", "three ", "four ", "five "], 250));
    let broke: Promise<void> | undefined;
    const run = session.run("PROMPT_JULIET10", {
      policy,
      onEvent: (event) => {
        if (event.type === "text_delta") broke ??= run.break();
      },
    });
    const result = await run;
    await broke;
    assert.deepEqual([result.status, result.interrupted], ["idle", true]);
    const messages = await session.messages();
    assert.equal(messages.length, 2);
    assert.ok(messages[1].text.startsWith("PARTIAL_INDIA99"));
    await assertSealedAtRest(["PROMPT_JULIET10"], ["PARTIAL_INDIA99"]);
  });

  test("a key exported to a file and imported again opens what the first sealed", async () => {
    const exported = await exportSessionKey(key);
    assert.equal(exported.key_id, key.keyId);
    const again = await importSessionKey(exported);
    const session = h.client.session((await h.client.sessions.list({ title: "sealed" }))[0].id, {
      key: again,
    });
    const detail = await session.get();
    assert.equal(
      await open(again, (detail.messages[0].content as { encrypted: never }).encrypted),
      "PROMPT_DELTA44 read it",
    );
    const other = await createSessionKey({ keyId: key.keyId });
    await assert.rejects(
      open(other, (detail.messages[0].content as { encrypted: never }).encrypted),
    );
  });

  test("an encrypted session driven without its key stops with missing_key", async () => {
    const created = await h.client.sessions.create({ title: "no key" }, { key });
    h.openai.enqueue(openAiStream(["fine"]));
    await assert.rejects(h.client.session(created.id).run("hello", { policy }).result, (error) => {
      assert.ok(error instanceof SwitchyardError);
      assert.equal(error.code, "missing_key");
      return true;
    });
  });
});
