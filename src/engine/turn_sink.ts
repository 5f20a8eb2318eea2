/**
 * Where a turn's stream events go. Buffered turns drop them (the answer is
 * built from the result); streamed turns hand each to the surface's framing
 * and queue the bytes for the response body. A client that disconnects only
 * stops the delivery: the turn goes on and is persisted (decisions.md §7).
 * Once any frame has reached the client, a provider failure can no longer
 * move to another candidate.
 */
import type { TurnEvent } from "../core/turn_stream_events.ts";

/** Comments on an idle stream, so proxies see traffic (every surface frames them alike). */
export const KEEP_ALIVE_INTERVAL_MS = 15_000;

/** How one surface writes a turn's events as bytes: its own stream format. */
export interface StreamFraming {
  /** The bytes of one event; null when the surface's stream has no place for it (yet). */
  frame(event: TurnEvent): Uint8Array | null;
  /** A frame clients ignore, sent after `KEEP_ALIVE_INTERVAL_MS` of silence. */
  keepAlive(): Uint8Array;
}

export interface TurnSink {
  readonly streaming: boolean;
  /** True once a frame was handed to the client. */
  readonly delivered: boolean;
  /** The stream may start: the first model call is about to be made. */
  begin(): void;
  emit(event: TurnEvent): void;
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
  /** Resolves when the first frame is handed over (a surface that opens with the first content). */
  readonly firstFrame: Promise<void>;
  /** The response body: frames, keep-alives on silence, closed by `end`. */
  readonly body: ReadableStream<Uint8Array>;
  /** Whether the client is still reading. */
  readonly connected: boolean;
  /** Writes the closing bytes and closes the stream; later events are dropped. */
  end(last: Uint8Array): void;
}

/**
 * `onClose` runs once, when the stream ends or its reader goes away. Frames
 * are written into the body itself: no stream stage between the turn and the
 * response, whose promises per frame would add up over hundreds of open streams.
 */
export function streamSink(
  framing: StreamFraming,
  keepAliveMs = KEEP_ALIVE_INTERVAL_MS,
  onClose = () => {},
): StreamSink {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let open = true;
  let ended = false;
  let delivered = false;
  let lastWrite = Date.now();
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => markStarted = resolve);
  let markFirstFrame!: () => void;
  const firstFrame = new Promise<void>((resolve) => markFirstFrame = resolve);
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
    firstFrame,
    body,
    begin() {
      if (timer !== undefined || !open) return markStarted();
      timer = setInterval(() => {
        if (Date.now() - lastWrite >= keepAliveMs - 5) { if (open) write(framing.keepAlive()); }
      }, Math.max(10, Math.floor(keepAliveMs / 3)));
      markStarted();
    },
    emit(event) {
      if (ended) return;
      sink.begin();
      const frame = framing.frame(event);
      if (frame === null) return;
      if (!delivered) markFirstFrame();
      delivered = true;
      if (open) write(frame);
    },
    end(last) {
      if (ended) return;
      ended = true;
      sink.begin();
      if (!open) return;
      write(last);
      stop();
      try {
        controller.close();
      } catch { /* already closed by the reader */ }
    },
  };
  return sink;
}
