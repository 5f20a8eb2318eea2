/**
 * Where a turn's stream events go. Buffered turns drop them (the envelope is
 * the answer); streamed turns queue them for the SSE body. A client that
 * disconnects only stops the delivery: the turn goes on and is persisted
 * (decisions.md §7). Once any event has reached the client, a provider failure
 * can no longer move to another candidate.
 */
import type { TurnStreamEvent } from "../core/turn_stream_events.ts";
import { encodeEvent, KEEP_ALIVE_INTERVAL_MS, keepAliveFrame } from "../http/sse.ts";

export interface TurnSink {
  readonly streaming: boolean;
  /** True once an event was handed to the client. */
  readonly delivered: boolean;
  /** The stream may start: the first model call is about to be made. */
  begin(): void;
  emit(event: TurnStreamEvent): void;
}

export const BUFFERED_SINK: TurnSink = {
  streaming: false,
  delivered: false,
  begin() {},
  emit() {},
};

export interface StreamSink extends TurnSink {
  /** Resolves when the stream should start (begin or the first event). */
  readonly started: Promise<void>;
  /** The SSE body: `data:` frames, keep-alive comments on silence, closed after `turn_end`. */
  readonly body: ReadableStream<Uint8Array>;
  /** Whether the client is still reading. */
  readonly connected: boolean;
}

/**
 * `onClose` runs once, when the stream ends or its reader goes away. Events
 * are framed as they are emitted, into the body itself: no stream stage
 * between the turn and the response, whose promises per frame would add up
 * over hundreds of open streams.
 */
export function streamSink(keepAliveMs = KEEP_ALIVE_INTERVAL_MS, onClose = () => {}): StreamSink {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let open = true;
  let delivered = false;
  let lastWrite = Date.now();
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => markStarted = resolve);
  let timer: ReturnType<typeof setInterval> | undefined;
  const stop = () => {
    if (open) onClose();
    open = false;
    if (timer !== undefined) clearInterval(timer);
  };
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    cancel() {
      stop();
    },
  });
  const write = (frame: Uint8Array) => {
    try {
      controller.enqueue(frame);
    } catch {
      stop();
    }
    lastWrite = Date.now();
  };
  const sink: StreamSink = {
    streaming: true,
    get delivered() {
      return delivered;
    },
    get connected() {
      return open;
    },
    started,
    body,
    begin() {
      if (timer !== undefined || !open) return markStarted();
      timer = setInterval(() => {
        if (Date.now() - lastWrite >= keepAliveMs - 5) { if (open) write(keepAliveFrame()); }
      }, Math.max(10, Math.floor(keepAliveMs / 3)));
      markStarted();
    },
    emit(event) {
      sink.begin();
      if (event.type !== "turn_end") delivered = true;
      if (open) write(encodeEvent(event));
      if (event.type === "turn_end" && open) {
        stop();
        try {
          controller.close();
        } catch { /* already closed by the reader */ }
      }
    },
  };
  return sink;
}
