/**
 * Server-sent event frames, pure (STYLE.md habit 7): a turn stream event in,
 * its UTF-8 `data: <json>\n\n` frame out. No timers and no I/O here: the
 * stream sink writes the frames into the response body, and `keepAliveFrame()`
 * after every `KEEP_ALIVE_INTERVAL_MS` of silence.
 */
import type { TurnStreamEvent } from "../core/turn_stream_events.ts";
import { KEEP_ALIVE_INTERVAL_MS } from "../engine/turn_sink.ts";

export { KEEP_ALIVE_INTERVAL_MS };

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  "x-accel-buffering": "no",
};

const encoder = new TextEncoder();
const KEEP_ALIVE_BYTES = encoder.encode(": keep-alive\n\n");

/**
 * One `data:` line per event. JSON.stringify escapes CR and LF inside
 * strings and adds no whitespace, so the line can never be split into two
 * fields; U+2028/2029 are not SSE line ends.
 */
export function encodeEvent(event: TurnStreamEvent): Uint8Array {
  return encoder.encode(`data: ${JSON.stringify(event)}\n\n`);
}

/** A comment frame: clients ignore it, proxies see traffic on an idle stream. */
export function keepAliveFrame(): Uint8Array {
  return KEEP_ALIVE_BYTES.slice();
}
