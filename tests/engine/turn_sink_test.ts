/** The stream sink: keep-alive comments on silence, one turn_end last, disconnect tolerated. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { streamSink } from "../../src/engine/turn_sink.ts";
import { textDelta, turnEnd } from "../../src/core/turn_stream_events.ts";
import { encodeEvent, keepAliveFrame } from "../../src/http/sse.ts";
import { idleEnvelope } from "../../src/core/turn_envelope.ts";
import { parseSse } from "../support/engine_app.ts";

const NATIVE = { frame: encodeEvent, keepAlive: keepAliveFrame };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("an idle stream gets keep-alive comments, and nothing follows turn_end", async () => {
  const sink = streamSink(NATIVE, 60);
  const body = new Response(sink.body).text();
  sink.begin();
  sink.emit(textDelta("a"));
  await sleep(250);
  sink.end(encodeEvent(turnEnd(idleEnvelope())));
  sink.emit(textDelta("late"));
  const { events, comments } = parseSse(await body);
  assert.ok(comments >= 2, `expected keep-alives, got ${comments}`);
  assert.deepEqual(events.map((e) => e.type), ["text_delta", "turn_end"]);
  assert.equal(sink.delivered, true);
});

test("a reader that goes away does not make emitting fail", async () => {
  const sink = streamSink(NATIVE, 60);
  const reader = sink.body.getReader();
  sink.emit(textDelta("a"));
  await reader.read();
  await reader.cancel();
  sink.emit(textDelta("b"));
  sink.end(encodeEvent(turnEnd(idleEnvelope())));
  assert.equal(sink.connected, false);
});
