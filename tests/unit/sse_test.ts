import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { idleEnvelope } from "../../src/core/turn_envelope.ts";
import {
  textDelta,
  toolCallRequested,
  turnEnd,
  type TurnStreamEvent,
} from "../../src/core/turn_stream_events.ts";
import { encodeEvent, KEEP_ALIVE_INTERVAL_MS, keepAliveFrame } from "../../src/http/sse.ts";

const decoder = new TextDecoder();

/** What the stream sink writes for each event, and for `"keep-alive"` a comment frame. */
function encodeAll(chunks: (TurnStreamEvent | "keep-alive")[]): Uint8Array[] {
  return chunks.map((c) => c === "keep-alive" ? keepAliveFrame() : encodeEvent(c));
}

/** A minimal SSE reader after the WHATWG algorithm: data lines joined, comments skipped. */
function parseSse(text: string): { data: string[]; comments: string[] } {
  const data: string[] = [];
  const comments: string[] = [];
  for (const block of text.split(/\r\n\r\n|\n\n|\r\r/)) {
    if (block === "") continue;
    const lines: string[] = [];
    for (const line of block.split(/\r\n|\n|\r/)) {
      if (line.startsWith(":")) comments.push(line.slice(1).trim());
      else if (line.startsWith("data:")) lines.push(line.slice(5).replace(/^ /, ""));
    }
    if (lines.length > 0) data.push(lines.join("\n"));
  }
  return { data, comments };
}

describe("SSE encoder", () => {
  test("each event is one `data: <json>` frame ended by a blank line", () => {
    const frame = decoder.decode(encodeEvent(textDelta("héllo ✓")));
    assert.equal(frame, 'data: {"type":"text_delta","delta":"héllo ✓"}\n\n');
  });

  test("frames are UTF-8 bytes", () => {
    const bytes = encodeEvent(textDelta("é"));
    assert.ok(bytes instanceof Uint8Array);
    assert.deepEqual([...bytes.slice(-6, -4)], [0xc3, 0xa9]);
  });

  test("text with newlines, carriage returns and separators stays on one data line", () => {
    const tricky = "line1\nline2\r\nline3\rdata: fake\n\nevent: x\u2028\u2029";
    const frame = decoder.decode(encodeEvent(textDelta(tricky)));
    const body = frame.slice(0, -2);
    assert.ok(!/[\r\n]/.test(body), "no raw CR or LF inside the frame");
    assert.ok(frame.endsWith("\n\n"));
    const parsed = parseSse(frame);
    assert.equal(parsed.data.length, 1);
    assert.deepEqual(JSON.parse(parsed.data[0]), { type: "text_delta", delta: tricky });
  });

  test("a stream of events round-trips through an SSE reader, in order", () => {
    const events: TurnStreamEvent[] = [
      textDelta("a\n"),
      toolCallRequested({
        call_id: "c",
        name: "shell",
        arguments: { command: "echo 'x'\nls" },
        requires_approval: "ask",
      }),
      turnEnd(idleEnvelope()),
    ];
    const frames = encodeAll(events);
    assert.equal(frames.length, 3);
    const text = frames.map((f) => decoder.decode(f)).join("");
    assert.deepEqual(parseSse(text).data.map((d) => JSON.parse(d)), events);
  });

  test("the keep-alive is a comment frame the reader ignores", () => {
    assert.equal(decoder.decode(keepAliveFrame()), ": keep-alive\n\n");
    assert.equal(KEEP_ALIVE_INTERVAL_MS, 15000);
    const frames = encodeAll([
      "keep-alive",
      textDelta("x"),
      "keep-alive",
      turnEnd(idleEnvelope()),
    ]);
    const text = frames.map((f) => decoder.decode(f)).join("");
    assert.equal(
      text,
      ': keep-alive\n\ndata: {"type":"text_delta","delta":"x"}\n\n: keep-alive\n\n' +
        'data: {"type":"turn_end","status":"idle","data":{},"allowed_continuations":[]}\n\n',
    );
    const parsed = parseSse(text);
    assert.equal(parsed.data.length, 2);
    assert.deepEqual(parsed.comments, ["keep-alive", "keep-alive"]);
  });

  test("keep-alive frames are independent copies", () => {
    const a = keepAliveFrame();
    a[0] = 0;
    assert.equal(decoder.decode(keepAliveFrame()), ": keep-alive\n\n");
  });
});
