/**
 * Server-sent events as a pure stream transform (STYLE.md habit 7): turn
 * stream events in, UTF-8 `data: <json>\n\n` frames out. No timers and no
 * I/O here: the orchestrator writes `KEEP_ALIVE` (or `keepAliveFrame()`)
 * every `KEEP_ALIVE_INTERVAL_MS` of silence and pipes the result to the
 * response body.
 */
import type { TurnStreamEvent } from "../core/turn_stream_events.ts";

export const KEEP_ALIVE_INTERVAL_MS = 15_000;

/** Written into the event stream to emit a keep-alive comment frame. */
export const KEEP_ALIVE = { comment: "keep-alive" } as const;
export type KeepAlive = typeof KEEP_ALIVE;

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

/**
 * Frames events until the one `turn_end`; anything written after it is
 * dropped, so a stream never carries more than one end or a late frame.
 */
export function sseEncoder(): TransformStream<TurnStreamEvent | KeepAlive, Uint8Array> {
  let ended = false;
  return new TransformStream({
    transform(chunk, controller) {
      if (ended) return;
      if ("comment" in chunk) {
        controller.enqueue(keepAliveFrame());
        return;
      }
      const event = chunk as TurnStreamEvent;
      controller.enqueue(encodeEvent(event));
      if (event.type === "turn_end") ended = true;
    },
  });
}
