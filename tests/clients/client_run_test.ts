/**
 * @switchyard/client end to end: the real service (in process, behind a real
 * socket) with the fake provider, driven only through the client's facade.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  createClient,
  SwitchyardError,
  type TurnStreamEvent,
} from "../../clients/typescript/src/index.ts";
import { openAiReply, openAiStream, openAiToolCallStream } from "../support/engine_app.ts";
import { clientHarness, clientPolicy } from "../support/client_harness.ts";

const h = clientHarness();
const policy = clientPolicy;

const newSession = async () =>
  h.client.session((await h.client.sessions.create({ title: "t" })).id);

describe("the run driver", () => {
  test("a multi-turn run executes allowed calls, asks for an ask call and answers every pause", async () => {
    const session = await newSession();
    h.openai.requests.length = 0;
    h.openai.enqueue(openAiToolCallStream("read_file", { path: "a.txt" }));
    h.openai.enqueue(openAiToolCallStream("shell", { command: "ls" }));
    h.openai.enqueue(openAiToolCallStream("shell", { command: "rm -rf /" }));
    h.openai.enqueue(openAiStream(["all ", "done"]));
    const executed: string[] = [];
    const asked: string[] = [];
    const events: string[] = [];
    const result = await session.run("look around", {
      policy,
      workspace: { root: "/work" },
      onToolCall: (call) => {
        executed.push(`${call.name} ${JSON.stringify(call.arguments)}`);
        return call.name === "read_file" ? "CONTENT_OF_A" : "a.txt b.txt";
      },
      onApproval: (request) => {
        assert.equal(request.kind, "tool_call");
        const command = "call" in request ? String(request.call.arguments.command) : "";
        asked.push(command);
        return command === "ls";
      },
      onEvent: (event) => void events.push(event.type),
    });
    assert.equal(result.status, "completed");
    assert.equal(result.message?.content, "all done");
    assert.equal(result.completed?.routing.model, "gpt-4o-mini");
    assert.deepEqual(executed, ['read_file {"path":"a.txt"}', 'shell {"command":"ls"}']);
    assert.deepEqual(asked, ["ls", "rm -rf /"]);
    assert.deepEqual(events.filter((e) => e === "turn_end").length, 4);
    const sent = h.openai.requests.map((r) => JSON.stringify(r.json));
    assert.ok(sent[1].includes("CONTENT_OF_A"), "the tool result reached the model");
    assert.ok(sent[3].includes("the user declined this call"), "the rejection reached the model");
    const traces = await session.traces({ limit: 500 });
    const approvals = traces.events.filter((e) => e.event_type === "approval");
    assert.deepEqual(
      approvals.map((e) =>
        (e.payload as unknown as { plaintext: { decision: string } }).plaintext.decision
      ),
      ["approved", "rejected"],
    );
  });

  test("buffered turns run the same way, and an approval pause reaches onApproval", async () => {
    const session = await newSession();
    h.openai.enqueue(openAiReply({ text: "reviewed" }));
    const kinds: string[] = [];
    const result = await session.run("review this file", {
      stream: false,
      policy: { ...policy, privacy: { remote: { mode: "ask" } } },
      attachments: { files: [{ path: "src/x.ts", content: "let x = 1;" }], instructions: [] },
      onApproval: (request) => (kinds.push(request.kind), true),
    });
    assert.deepEqual(kinds, ["remote_disclosure"]);
    assert.equal(result.status, "completed");
    assert.equal(result.message?.content, "reviewed");
  });

  test("a rejected approval leaves the run idle with no answer", async () => {
    const session = await newSession();
    const result = await session.run("review this file", {
      policy: { ...policy, privacy: { remote: { mode: "ask" } } },
      attachments: { files: [{ path: "src/y.ts", content: "let y = 2;" }], instructions: [] },
      onApproval: () => ({ approved: false, reason: "not this one" }),
    });
    assert.equal(result.status, "idle");
    assert.equal(result.message, undefined);
  });

  test("break during a streamed turn ends the run idle with the partial kept", async () => {
    const session = await newSession();
    h.openai.enqueue(openAiStream(["PARTIAL_ONE ", "two ", "three ", "four ", "five "], 250));
    const deltas: string[] = [];
    let broke: Promise<void> | undefined;
    const run = session.run("write a long story", {
      policy,
      onEvent: (event: TurnStreamEvent) => {
        if (event.type !== "text_delta") return;
        deltas.push(event.delta);
        broke ??= run.break();
      },
    });
    const result = await run;
    await broke;
    assert.equal(result.status, "idle");
    assert.equal(result.interrupted, true);
    assert.ok(deltas.length >= 1 && deltas.length < 5, `cut early: ${deltas.length} deltas`);
    // The cut turn stores its partial as it stops, just after the break answered.
    let messages = await session.messages();
    for (let i = 0; i < 100 && messages.length < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      messages = await session.messages();
    }
    assert.deepEqual(messages.map((m) => m.role), ["user", "assistant"]);
    assert.ok(messages[1].text.startsWith("PARTIAL_ONE"));
    // The session is free again: a new run starts at once.
    h.openai.enqueue(openAiStream(["short one"]));
    assert.equal((await session.run("shorter", { policy })).message?.content, "short one");
  });

  test("inject cuts the streaming turn and the run goes on with the new text", async () => {
    const session = await newSession();
    h.openai.enqueue(openAiStream(["SLOW_A ", "b ", "c ", "d ", "e "], 250));
    h.openai.enqueue(openAiStream(["answered the injected text"]));
    let injected: Promise<void> | undefined;
    const run = session.run("first prompt", {
      policy,
      onEvent: (event) => {
        if (event.type === "text_delta") injected ??= run.inject("INJECTED_TEXT instead");
      },
    });
    const result = await run;
    await injected;
    assert.equal(result.status, "completed");
    assert.equal(result.message?.content, "answered the injected text");
    assert.ok(JSON.stringify(h.openai.requests.at(-1)!.json).includes("INJECTED_TEXT"));
  });

  test("a turn that fails throws the service's error with its code", async () => {
    const session = await newSession();
    h.openai.enqueue({ status: 500, body: { error: { message: "boom" } } });
    await assert.rejects(session.run("x", { policy, stream: false }).result, (error) => {
      assert.ok(error instanceof SwitchyardError);
      assert.equal(error.code, "provider_unavailable");
      assert.equal(error.status, 503);
      return true;
    });
  });
});

describe("turns without the driver", () => {
  test("a streamed execute is an async iterator of typed events ending with its turn_end", async () => {
    const session = await newSession();
    h.openai.enqueue(openAiStream(["Hel", "lo"]));
    const stream = await session.executeStream({ input: { text: "hi" }, policy });
    const seen: TurnStreamEvent[] = [];
    for await (const event of stream) seen.push(event);
    const end = seen.at(-1)!;
    assert.equal(end.type, "turn_end");
    assert.equal(end.type === "turn_end" && end.status, "completed");
    const text = seen.flatMap((e) => (e.type === "text_delta" ? [e.delta] : [])).join("");
    assert.equal(text, "Hello");
    assert.ok(seen.some((e) => e.type === "usage"));
    assert.equal((await stream.end()).status, "completed");
  });

  test("preview, usage and the session calls are typed and answer", async () => {
    const session = await newSession();
    const preview = await session.preview({ input: { text: "hi" }, policy });
    assert.equal(preview.routing.provider, "openai");
    assert.equal(preview.routing.model, "gpt-4o-mini");
    const usage = await session.usage();
    assert.deepEqual(usage.by_model, []);
    const archived = await session.archive();
    assert.equal(archived.archived, true);
    const listed = await h.client.sessions.list();
    assert.ok(listed.some((s) => s.id === session.id && s.archived));
    await assert.rejects(session.usage(), { code: "session_not_found", status: 404 });
    assert.equal((await session.update({ archived: false })).archived, false);
    await session.delete();
    await assert.rejects(session.get(), (error) => {
      assert.ok(error instanceof SwitchyardError);
      assert.deepEqual([error.code, error.status], ["session_not_found", 404]);
      return true;
    });
    const providers = await h.client.providers();
    assert.ok(providers.some((p) => p.id === "ollama" && p.local));
  });

  test("validation failures carry code, status and details", async () => {
    const session = await newSession();
    await assert.rejects(
      session.preview({
        input: { text: "x" },
        policy: {
          routing: { rules: [{ name: "r", model: "m", effort: "huge" as "low", priority: 1 }] },
        },
      }),
      (error) => {
        assert.ok(error instanceof SwitchyardError);
        assert.deepEqual([error.code, error.status], ["unknown_effort", 422]);
        assert.equal(error.details?.path, "policy.routing.rules[0].effort");
        return true;
      },
    );
  });
});

describe("tokens", () => {
  test("an expired token is renewed from the API key once, and the new one is reported", async () => {
    const renewed: string[] = [];
    const own = createClient({ baseUrl: h.served.url, onToken: (t) => void renewed.push(t.token) });
    const boot = await own.auth.bootstrap();
    await own.auth.signIn();
    const first = own.auth.credentials().token;
    h.app.clock.advance((h.app.config.auth.tokenTtlSeconds + 1) * 1000);
    const me = await own.auth.me();
    assert.equal(me.user_id, boot.user_id);
    assert.equal(renewed.length, 2);
    assert.notEqual(own.auth.credentials().token, first);
    assert.equal(own.auth.credentials().token, renewed[1]);
  });

  test("without refresh the expiry is reported as token_expired; after sign-out, token_revoked", async () => {
    const own = createClient({ baseUrl: h.served.url });
    await own.auth.bootstrap();
    await own.auth.signIn();
    const noRefresh = createClient({
      baseUrl: h.served.url,
      token: own.auth.credentials().token,
      apiKey: own.auth.credentials().apiKey,
      refresh: false,
    });
    h.app.clock.advance((h.app.config.auth.tokenTtlSeconds + 1) * 1000);
    await assert.rejects(noRefresh.auth.me(), (error) => {
      assert.ok(error instanceof SwitchyardError);
      assert.deepEqual([error.code, error.status], ["token_expired", 401]);
      return true;
    });
    await own.auth.signIn();
    const token = own.auth.credentials().token;
    await own.auth.signOut();
    const revoked = createClient({ baseUrl: h.served.url, token });
    await assert.rejects(revoked.auth.me(), { code: "token_revoked", status: 401 });
  });
});
