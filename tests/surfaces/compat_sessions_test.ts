/**
 * Which session a compatible request lands in (decisions.md §12 "Which
 * session"), through the official `openai` and `@anthropic-ai/sdk` clients, on
 * every store (PGlite; PostgreSQL with DATABASE_URL): the client's
 * conversation key first (`prompt_cache_key`, the session part of Claude
 * Code's `metadata.user_id` in both its forms, or its session header), the
 * digest only without one; and never a 409: a request whose session has a
 * turn in flight goes on in a fork.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import type { Db } from "../../src/store/db.ts";
import { type Account, call, signUp, type TestApp } from "../support/app.ts";
import { checkedFetch } from "../support/compat_fetch.ts";
import { storesUnderTest } from "../support/databases.ts";
import { createEngineApp, openAiReply, openAiStream } from "../support/engine_app.ts";
import { type FakeProvider, startFakeProvider } from "../support/fake_provider.ts";

const PROVIDER_KEY = { "x-router-provider-openai-api-key": "sk-test-openai" };
const POLICY = {
  routing: { default: { model: "openai/gpt-4o-mini", fallbacks: [] } },
  privacy: { remote: { mode: "allow" } },
};

for (const store of storesUnderTest(process.env)) {
  describe(`sessions of compatible conversations on ${store.name}`, () => {
    let app: TestApp;
    let openai: FakeProvider;
    let alice: Account;
    let opened: Awaited<ReturnType<typeof store.open>>;
    let db: Db;
    before(async () => {
      opened = await store.open();
      db = opened.db;
      openai = await startFakeProvider();
      app = await createEngineApp({
        openai: openai.url,
        ollama: "http://127.0.0.1:9",
        db,
      });
      alice = await signUp(app);
      const stored = await call(app, "PUT", "/api/v1/policies/default", {
        token: alice.token,
        body: POLICY,
      });
      assert.ok(stored.status < 300, JSON.stringify(stored.body));
    });
    after(async () => {
      await app.close();
      await openai.close();
      await opened.dispose();
    });

    const chat = (headers: Record<string, string> = {}) =>
      new OpenAI({
        apiKey: alice.apiKey,
        baseURL: "http://switchyard.test/v1",
        defaultHeaders: { ...PROVIDER_KEY, ...headers },
        maxRetries: 0,
        fetch: checkedFetch(() => app),
      });
    const messages = (headers: Record<string, string> = {}) =>
      new Anthropic({
        apiKey: alice.apiKey,
        baseURL: "http://switchyard.test",
        defaultHeaders: { ...PROVIDER_KEY, ...headers },
        maxRetries: 0,
        fetch: checkedFetch(() => app),
      });

    async function ask(
      history: OpenAI.ChatCompletionMessageParam[],
      key?: string,
    ): Promise<{ session: string; text: string | null }> {
      const r = await chat().chat.completions.create({
        model: "switchyard",
        messages: history,
        ...(key === undefined ? {} : { prompt_cache_key: key }),
      }).withResponse();
      return {
        session: r.response.headers.get("x-router-session-id")!,
        text: r.data.choices[0].message.content,
      };
    }

    async function metadataOf(
      session: string,
    ): Promise<Record<string, unknown>> {
      const r = await call(app, "GET", `/api/v1/sessions/${session}`, {
        token: alice.token,
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.session.metadata;
    }

    test("a session's title is the user's first own words, not a client's context block", async () => {
      openai.enqueue(openAiReply({ text: "done" }));
      const { session } = await ask([
        {
          role: "user",
          content: "<environment_context>\n  <cwd>/work/project</cwd>\n</environment_context>",
        },
        {
          role: "user",
          content: "<system-reminder>be brief</system-reminder>Run `ls` and tell me what is here",
        },
      ], "titled-conversation");
      const r = await call(app, "GET", `/api/v1/sessions/${session}`, { token: alice.token });
      assert.equal(r.body.session.title, "Run `ls` and tell me what is here");
    });

    test("two conversations with identical first exchanges stay apart by their prompt_cache_key", async () => {
      const first: OpenAI.ChatCompletionMessageParam[] = [{
        role: "user",
        content: "hi",
      }];
      openai.enqueue(openAiReply({ text: "hello" }));
      const a = await ask(first, "conversation-a");
      openai.enqueue(openAiReply({ text: "hello" }));
      const b = await ask(first, "conversation-b");
      assert.notEqual(a.session, b.session);
      const next = [
        ...first,
        { role: "assistant" as const, content: "hello" },
        {
          role: "user" as const,
          content: "go on",
        },
      ];
      openai.enqueue(openAiReply({ text: "a2" }));
      assert.equal((await ask(next, "conversation-a")).session, a.session);
      openai.enqueue(openAiReply({ text: "b2" }));
      assert.equal((await ask(next, "conversation-b")).session, b.session);
      // The key names the session even when the messages match nothing recorded.
      openai.enqueue(openAiReply({ text: "a3" }));
      assert.equal(
        (await ask([{ role: "user", content: "new" }], "conversation-a"))
          .session,
        a.session,
      );
      // Without a key, the digest rule: the latest turn recorded with that conversation.
      openai.enqueue(openAiReply({ text: "nokey" }));
      const digest = await ask(next);
      assert.ok(digest.session === a.session || digest.session === b.session);
      const sessions = await call(app, "GET", `/api/v1/sessions/${a.session}`, {
        token: alice.token,
      });
      assert.deepEqual(
        sessions.body.session.messages.map((m: { role: string }) => m.role),
        ["user", "assistant", "user", "assistant", "user", "assistant"],
      );
    });

    test("Claude Code's metadata.user_id names the session in its older and its JSON form, and by header", async () => {
      const session = "5d2b3c1e-0f4a-4e8b-9c7d-1a2b3c4d5e6f";
      const legacy = `user_${"ab".repeat(32)}_account_0b7c_session_${session}`;
      const json = JSON.stringify({
        device_id: "cd".repeat(32),
        account_uuid: "",
        session_id: session,
      });
      const send = async (
        userId: string | undefined,
        text: string,
        headers = {},
      ) => {
        openai.enqueue(openAiReply({ text: "ok" }));
        const r = await messages(headers).messages.create({
          model: "switchyard",
          max_tokens: 64,
          messages: [{ role: "user", content: text }],
          ...(userId === undefined ? {} : { metadata: { user_id: userId } }),
        }).withResponse();
        return r.response.headers.get("x-router-session-id")!;
      };
      const one = await send(legacy, "first");
      assert.equal(await send(json, "second"), one);
      assert.equal(
        await send(undefined, "third", { "x-claude-code-session-id": session }),
        one,
      );
      // A user id without a session part names a user, not a conversation.
      const plain = await send("user-42", "fourth");
      assert.notEqual(plain, one);
      assert.notEqual(await send("user-42", "fifth"), plain);
      const other = await send(
        legacy.replace(session, "other-session"),
        "sixth",
      );
      assert.notEqual(other, one);
    });

    for (const keyed of [false, true]) {
      test(`eight concurrent continuations of one conversation all answer 200 (${keyed ? "by key" : "by digest"})`, async () => {
        const key = keyed ? `parallel-${store.name}` : undefined;
        const start: OpenAI.ChatCompletionMessageParam[] = [{
          role: "user",
          content: `plan the work ${keyed}`,
        }];
        openai.enqueue(openAiReply({ text: "planned" }));
        const origin = await ask(start, key);
        const next = [...start, {
          role: "assistant" as const,
          content: "planned",
        }, {
          role: "user" as const,
          content: "now do it",
        }];
        for (let i = 0; i < 8; i++) {
          openai.enqueue({
            ...openAiReply({ text: `part ${i}` }),
            delay_ms: 400,
          });
        }
        const answers = await Promise.all(
          Array.from({ length: 8 }, () => ask(next, key)),
        );
        const sessions = answers.map((a) => a.session);
        // One went on in the conversation's session, the others in forks of it.
        assert.equal(
          sessions.filter((s) => s === origin.session).length,
          1,
          sessions.join(),
        );
        const forks = [
          ...new Set(sessions.filter((s) => s !== origin.session)),
        ];
        assert.equal(forks.length, 7);
        for (const fork of forks) {
          assert.deepEqual(await metadataOf(fork), {
            surface: "openai",
            forked_from: origin.session,
          });
        }
        // The conversation's session is still the one its key (or its digest) names.
        const answered = answers.find((a) => a.session === origin.session)!;
        openai.enqueue(openAiReply({ text: "done" }));
        const later = await ask(
          [...next, { role: "assistant", content: answered.text }, {
            role: "user",
            content: "next",
          }],
          key,
        );
        assert.equal(later.session, origin.session);
        // A fork's own answer, continued without a key, goes on in that fork.
        if (!keyed) {
          const forked = answers.find((a) => a.session !== origin.session)!;
          openai.enqueue(openAiReply({ text: "fork goes on" }));
          const inFork = await ask([...next, {
            role: "assistant",
            content: forked.text,
          }, {
            role: "user",
            content: "next",
          }]);
          assert.equal(inFork.session, forked.session);
        }
        const rows = await db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM sessions WHERE metadata->>'forked_from' = $1",
          [origin.session],
        );
        assert.equal(rows[0].n, 7);
      });
    }

    test("eight concurrent streamed continuations through the Anthropic client all stream", async () => {
      const key = `user_${"ab".repeat(32)}_account__session_streamed-${store.name}`;
      const first = [{ role: "user" as const, content: "start streaming" }];
      openai.enqueue(openAiReply({ text: "started" }));
      const origin = await messages().messages.create({
        model: "switchyard",
        max_tokens: 64,
        messages: first,
        metadata: { user_id: key },
      }).withResponse();
      const session = origin.response.headers.get("x-router-session-id")!;
      for (let i = 0; i < 8; i++) {
        openai.enqueue({ ...openAiStream([`part `, `${i}`]), delay_ms: 300 });
      }
      const answers = await Promise.all(Array.from({ length: 8 }, async () => {
        const stream = messages().messages.stream({
          model: "switchyard",
          max_tokens: 64,
          messages: [...first, { role: "assistant", content: "started" }, {
            role: "user",
            content: "go on",
          }],
          metadata: { user_id: key },
        });
        const final = await stream.finalMessage();
        const { response } = await stream.withResponse();
        return {
          text: final.content,
          session: response.headers.get("x-router-session-id")!,
        };
      }));
      assert.equal(answers.filter((a) => a.session === session).length, 1);
      assert.equal(new Set(answers.map((a) => a.session)).size, 8);
      for (const a of answers) assert.match(JSON.stringify(a.text), /part \d/);
    });

    test("a session named by header with a turn in flight forks too", async () => {
      const own = await call(app, "POST", "/api/v1/sessions", {
        token: alice.token,
        body: { title: "named" },
      });
      const id = own.body.session.id as string;
      openai.enqueue({ ...openAiReply({ text: "slow" }), delay_ms: 400 });
      openai.enqueue(openAiReply({ text: "fast" }));
      const named = chat({ "x-router-session-id": id });
      const [slow, fast] = await Promise.all([
        named.chat.completions.create({
          model: "switchyard",
          messages: [{ role: "user", content: "one" }],
        }).withResponse(),
        new Promise((resolve) => setTimeout(resolve, 100)).then(() =>
          named.chat.completions.create({
            model: "switchyard",
            messages: [{ role: "user", content: "two" }],
          }).withResponse()
        ),
      ]);
      assert.equal(slow.response.headers.get("x-router-session-id"), id);
      const forked = fast.response.headers.get("x-router-session-id")!;
      assert.notEqual(forked, id);
      assert.equal((await metadataOf(forked)).forked_from, id);
    });
  });
}
