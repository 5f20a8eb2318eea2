/**
 * A provider's streamed body read by ProviderCall: events come out whole and
 * decoded however the bytes are cut, from a byte stream (read into one reused
 * buffer) and from a plain stream alike, chunks larger than that buffer included.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ProviderCall } from "../../src/providers/http_call.ts";

const TARGET = { provider: "openai", baseUrl: "http://127.0.0.1:9", timeoutMs: 5000 };

function body(chunks: Uint8Array[], bytes: boolean): ReadableStream<Uint8Array> {
  let i = 0;
  if (!bytes) {
    return new ReadableStream<Uint8Array>({
      pull(c) {
        if (i < chunks.length) c.enqueue(chunks[i++]);
        else c.close();
      },
    });
  }
  return new ReadableStream({
    type: "bytes",
    pull(c) {
      if (i < chunks.length) return c.enqueue(chunks[i++]);
      c.close();
      // A reader's pending read into its own buffer ends only when answered, with no bytes.
      c.byobRequest?.respond(0);
    },
  });
}

/** The bytes of `text` cut at every `step` bytes, so multi-byte characters are split too. */
function cut(text: string, step: number): Uint8Array[] {
  const all = new TextEncoder().encode(text);
  const out: Uint8Array[] = [];
  for (let at = 0; at < all.length; at += step) out.push(all.slice(at, at + step));
  return out;
}

async function events(chunks: Uint8Array[], bytes: boolean): Promise<string[]> {
  const call = new ProviderCall(TARGET);
  try {
    const data: string[] = [];
    for await (const e of call.sse(new Response(body(chunks, bytes)))) data.push(e.data);
    return data;
  } finally {
    call.close();
  }
}

const TEXT = "data: héllo wörld ✓\n\ndata: 🚀 second\n\ndata: [DONE]\n\n";
const EXPECTED = ["héllo wörld ✓", "🚀 second", "[DONE]"];

for (const bytes of [true, false]) {
  describe(`a streamed body (${bytes ? "byte stream" : "plain stream"})`, () => {
    test("cut at every byte, every event comes out whole and decoded", async () => {
      for (const step of [1, 2, 3, 5, 7]) {
        assert.deepEqual(await events(cut(TEXT, step), bytes), EXPECTED, `cut every ${step}`);
      }
    });

    test("a chunk larger than the read buffer comes out whole", async () => {
      const big = "ü".repeat(30_000);
      const text = `data: ${big}\n\ndata: [DONE]\n\n`;
      assert.deepEqual(await events([new TextEncoder().encode(text)], bytes), [big, "[DONE]"]);
    });

    test("a body cut inside an event drops only that event", async () => {
      assert.deepEqual(await events(cut("data: one\n\ndata: tw", 4), bytes), ["one"]);
    });
  });
}
