/**
 * The SSE and NDJSON parsers are pure stream transforms: tested on strings,
 * split at awkward places, with no server.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { sseEvents } from "../../src/providers/sse_parser.ts";
import { ndjsonLines } from "../../src/providers/ndjson_parser.ts";

async function run<T>(chunks: string[], transform: TransformStream<string, T>): Promise<T[]> {
  const source = new ReadableStream<string>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  const out: T[] = [];
  for await (const item of source.pipeThrough(transform)) out.push(item);
  return out;
}

/** Every way of cutting `text` in two, to prove chunk boundaries never matter. */
function splits(text: string): string[][] {
  const out: string[][] = [];
  for (let i = 0; i <= text.length; i++) out.push([text.slice(0, i), text.slice(i)]);
  return out;
}

describe("sse parser", () => {
  test("sse parser yields one event per blank-line-terminated block", async () => {
    const events = await run(["data: a\n\nevent: ping\ndata: {}\n\n"], sseEvents());
    assert.deepEqual(events, [{ event: "message", data: "a" }, { event: "ping", data: "{}" }]);
  });

  test("sse parser joins multi-line data and keeps ids", async () => {
    const events = await run(["id: 7\ndata: one\ndata:two\n\n"], sseEvents());
    assert.deepEqual(events, [{ event: "message", data: "one\ntwo", id: "7" }]);
  });

  test("sse parser accepts CRLF, CR and LF line endings alike", async () => {
    const expected = [{ event: "message", data: "x" }, { event: "message", data: "y" }];
    for (const text of ["data: x\r\n\r\ndata: y\r\n\r\n", "data: x\r\rdata: y\r\r"]) {
      assert.deepEqual(await run([text], sseEvents()), expected, JSON.stringify(text));
    }
  });

  test("sse parser gives the same events wherever the chunks are cut", async () => {
    const text = 'event: a\r\ndata: {"k":1}\r\n\r\n: keep-alive\n\ndata: [DONE]\n\n';
    const expected = [{ event: "a", data: '{"k":1}' }, { event: "message", data: "[DONE]" }];
    for (const chunks of splits(text)) assert.deepEqual(await run(chunks, sseEvents()), expected);
  });

  test("sse parser ignores comments, retry and events without data", async () => {
    const events = await run([": hi\n\nretry: 10\n\nevent: x\n\ndata: ok\n\n"], sseEvents());
    assert.deepEqual(events, [{ event: "message", data: "ok" }]);
  });

  test("sse parser drops a trailing event that never got its blank line", async () => {
    const events = await run(["data: whole\n\ndata: half"], sseEvents());
    assert.deepEqual(events, [{ event: "message", data: "whole" }]);
  });
});

describe("ndjson parser", () => {
  test("ndjson parser yields each non-empty line wherever the chunks are cut", async () => {
    const text = '{"a":1}\n\n{"b":2}\r\n{"c":3}\n';
    for (const chunks of splits(text)) {
      assert.deepEqual(await run(chunks, ndjsonLines()), ['{"a":1}', '{"b":2}', '{"c":3}']);
    }
  });

  test("ndjson parser passes on a last line without its newline", async () => {
    assert.deepEqual(await run(['{"a":1}\n{"b"'], ndjsonLines()), ['{"a":1}', '{"b"']);
  });
});
