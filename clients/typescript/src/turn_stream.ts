/**
 * A streamed turn as an async iterator of typed events, parsed with
 * `eventsource-parser`. The iterator ends after the one `turn_end`; a stream
 * that breaks off before it is a `network_error`, so a caller never mistakes
 * a cut turn for a finished one.
 */
import { EventSourceParserStream } from "eventsource-parser/stream";
import { SwitchyardError } from "./errors.ts";
import type { TurnEndEvent, TurnStreamEvent } from "./types.ts";

export interface TurnStream extends AsyncIterable<TurnStreamEvent> {
  /** Reads what is left and answers the `turn_end`. */
  end(): Promise<TurnEndEvent>;
  /** Stops reading; the turn itself goes on in the service (decisions.md §7). */
  cancel(): Promise<void>;
}

export function turnStream(body: ReadableStream<Uint8Array>): TurnStream {
  const reader = body
    // The DOM typings of some TypeScript versions type its writable side as BufferSource only.
    .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  let last: TurnEndEvent | undefined;

  async function* events(): AsyncGenerator<TurnStreamEvent> {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          throw new SwitchyardError("network_error", "the turn stream ended before its turn_end");
        }
        let event: TurnStreamEvent;
        try {
          event = JSON.parse(value.data);
        } catch (cause) {
          throw new SwitchyardError("invalid_response", "a turn stream event is not JSON", 0, {
            data: value.data.slice(0, 200),
          }, { cause });
        }
        yield event;
        if (event.type === "turn_end") {
          last = event;
          return;
        }
      }
    } finally {
      await reader.cancel().catch(() => {});
    }
  }

  const iterator = events();
  return {
    [Symbol.asyncIterator]: () => iterator,
    async end() {
      for await (const _ of iterator) { /* drain to the turn_end */ }
      if (last === undefined) {
        throw new SwitchyardError("network_error", "the turn stream ended before its turn_end");
      }
      return last;
    },
    async cancel() {
      await iterator.return(undefined);
      await reader.cancel().catch(() => {});
    },
  };
}
