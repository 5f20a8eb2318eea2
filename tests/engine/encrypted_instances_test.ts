/**
 * Encrypted sessions across two instances sharing one PostgreSQL: a `break`
 * or `inject` served by one instance cuts a stream served by the other, and
 * the cut turn's partial reply and run input still reach it (sealed to that
 * request's key through the database), so the partial is sealed and stored
 * and the inject goes on with the history the client had opened. Nothing
 * readable is left in any table.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { describe, test } from "node:test";
import { call, type TestApp } from "../support/app.ts";
import { dumpDatabase } from "../support/db_dump.ts";
import { openAiReply, openAiStream, openStream, twoInstances } from "../support/engine_app.ts";
import { sealingClient } from "../support/sealing_client.ts";

const KEY = { "x-router-provider-openai-api-key": "sk-test-openai" };
const policy = {
  routing: { default: { model: "openai/gpt-4o-mini" }, rules: [] },
  privacy: { remote: { mode: "allow" } },
};
// deno-lint-ignore no-explicit-any
type Body = any;

const adminUrl = process.env.DATABASE_URL;
if (adminUrl) {
  describe("encrypted sessions on two instances", () => {
    const h = twoInstances(adminUrl);
    const client = sealingClient("key-two-instances");

    async function session(): Promise<string> {
      const r = await call(h.one, "POST", "/api/v1/sessions", {
        token: h.alice.token,
        body: { title: "sealed", key_id: (await client).keyId },
      });
      return r.body.session.id;
    }

    const cont = (app: TestApp, id: string, body: unknown) =>
      call(app, "POST", `/api/v1/sessions/${id}/continue`, {
        token: h.alice.token,
        body,
        headers: KEY,
        unchecked: true,
      });

    /** Starts a stream on instance one that the provider feeds slowly, and waits for its first text. */
    async function cutStream(id: string, prompt: string, parts: string[]) {
      h.openai.enqueue(openAiStream(parts, 300));
      const stream = await openStream(h.one, `/api/v1/sessions/${id}/execute`, h.alice.token, {
        input: { text: prompt },
        policy,
      }, KEY);
      await stream.until("text_delta");
      return stream;
    }

    async function sealAll(app: TestApp, id: string, body: Body, status: string): Promise<Body> {
      const encrypted = await (await client).sealAll(body.data.to_encrypt);
      const r = await cont(app, id, { type: "sealed", data: { encrypted } });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.status, status);
      return r.body;
    }

    async function openedMessages(id: string): Promise<string[]> {
      const detail = await call(h.two, "GET", `/api/v1/sessions/${id}`, { token: h.alice.token });
      const out = [];
      for (const m of detail.body.session.messages) {
        assert.deepEqual(Object.keys(m.content), ["encrypted"]);
        out.push(await (await client).open(m.content.encrypted));
      }
      return out;
    }

    async function assertNothingReadable(canaries: string[]): Promise<void> {
      const dump = await dumpDatabase(h.db);
      for (const canary of canaries) {
        assert.equal(dump.includes(canary), false, `${canary} is stored readable`);
      }
      const slots = await h.db.query("SELECT 1 FROM run_handoffs");
      assert.equal(slots.length, 0, "no hand-off slot is left behind");
    }

    test("a break on one instance seals the partial of a stream served by the other", async () => {
      const id = await session();
      const stream = await cutStream(id, "PROMPT_KILO_2I", ["PARTIAL_LIMA_2I ", "b ", "c ", "d "]);
      const broke = await cont(h.two, id, { type: "break" });
      assert.equal(broke.status, 200, JSON.stringify(broke.body));
      assert.equal(broke.body.status, "awaiting_encrypt");
      assert.deepEqual(broke.body.allowed_continuations, ["sealed", "break"]);
      const pending = Object.values(broke.body.data.to_encrypt as Record<string, string>);
      assert.ok(pending.some((p) => p.startsWith("PARTIAL_LIMA_2I")), JSON.stringify(pending));
      assert.ok(pending.includes("PROMPT_KILO_2I"), "the cut turn's prompt is sealed too");
      assert.ok(
        Object.keys(broke.body.data.to_encrypt).some((ref) => ref.startsWith("trace:")),
        "and its trace payloads",
      );
      const events = await stream.until("turn_end");
      assert.equal(events.at(-1).status, "idle");

      await sealAll(h.one, id, broke.body, "idle");
      const [prompt, partial] = await openedMessages(id);
      assert.equal(prompt, "PROMPT_KILO_2I");
      assert.ok(partial.startsWith("PARTIAL_LIMA_2I"));
      assert.notEqual(partial, "PARTIAL_LIMA_2I b c d ");
      await assertNothingReadable(["PROMPT_KILO_2I", "PARTIAL_LIMA_2I"]);
    });

    test("an inject on one instance goes on from the run input of a stream served by the other", async () => {
      const id = await session();
      const stream = await cutStream(id, "PROMPT_MIKE_2I", ["PARTIAL_NOVEMBER_2I ", "b ", "c "]);
      h.openai.enqueue(openAiReply({ text: "ANSWER_OSCAR_2I" }));
      const injected = await cont(h.two, id, {
        type: "inject",
        data: { messages: [{ text: "INJECT_PAPA_2I" }] },
      });
      assert.equal(injected.status, 200, JSON.stringify(injected.body));
      assert.equal(injected.body.status, "completed");
      assert.equal(injected.body.data.message.content, "ANSWER_OSCAR_2I");
      assert.deepEqual(injected.body.allowed_continuations, ["sealed", "break"]);
      await stream.until("turn_end");

      const sent = JSON.stringify(h.openai.requests.at(-1)!.json);
      for (const text of ["PROMPT_MIKE_2I", "INJECT_PAPA_2I"]) {
        assert.ok(sent.includes(text), `the model saw ${text}`);
      }
      await sealAll(h.two, id, injected.body, "idle");
      const opened = await openedMessages(id);
      assert.equal(opened.length, 4);
      assert.equal(opened[0], "PROMPT_MIKE_2I");
      assert.ok(opened[1].startsWith("PARTIAL_NOVEMBER_2I"));
      assert.deepEqual(opened.slice(2), ["INJECT_PAPA_2I", "ANSWER_OSCAR_2I"]);
      await assertNothingReadable([
        "PROMPT_MIKE_2I",
        "PARTIAL_NOVEMBER_2I",
        "INJECT_PAPA_2I",
        "ANSWER_OSCAR_2I",
      ]);
    });
  });
}
