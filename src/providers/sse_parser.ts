/**
 * Server-sent events parsing as a pure stream transform: decoded text in,
 * dispatched events out (WHATWG HTML "event stream interpretation"). It knows
 * nothing of any provider, so it is tested on strings alone.
 */
import { framerStream, type TextFramer } from "./text_framer.ts";

export interface SseEvent {
  /** The `event:` field; "message" when absent. */
  readonly event: string;
  /** The `data:` lines joined with "\n". */
  readonly data: string;
  readonly id?: string;
}

interface Pending {
  event: string;
  data: string[];
  id?: string;
  touched: boolean;
}

const fresh = (): Pending => ({ event: "", data: [], touched: false });

function applyLine(line: string, pending: Pending): void {
  if (line.startsWith(":")) return; // a comment, used as keep-alive
  const colon = line.indexOf(":");
  const field = colon === -1 ? line : line.slice(0, colon);
  let value = colon === -1 ? "" : line.slice(colon + 1);
  if (value.startsWith(" ")) value = value.slice(1);
  if (field === "event") pending.event = value;
  else if (field === "data") pending.data.push(value);
  else if (field === "id") pending.id = value;
  else return; // `retry` and unknown fields do not make an event
  pending.touched = true;
}

/**
 * Splits text into events. Lines may end in "\n", "\r\n" or "\r" and may be
 * split anywhere across chunks. An event is dispatched only at its blank line:
 * a trailing event without one (a stream cut mid-event) is dropped, as the
 * standard says, so a cut is seen by its missing terminal event.
 */
export function sseFramer(): TextFramer<SseEvent> {
  let buffer = "";
  let pending = fresh();
  const dispatch = (out: SseEvent[]) => {
    if (pending.touched && pending.data.length > 0) {
      const event: SseEvent = {
        event: pending.event === "" ? "message" : pending.event,
        data: pending.data.join("\n"),
        ...(pending.id === undefined ? {} : { id: pending.id }),
      };
      out.push(event);
    }
    pending = fresh();
  };
  /** Handles every complete line; at the end of input a lone "\r" ends its line too. */
  const consume = (out: SseEvent[], final: boolean) => {
    let start = 0;
    for (let i = 0; i < buffer.length; i++) {
      const c = buffer[i];
      if (c !== "\n" && c !== "\r") continue;
      // A "\r" at the very end may be the first half of "\r\n": wait for more.
      if (c === "\r" && i === buffer.length - 1 && !final) break;
      const line = buffer.slice(start, i);
      if (c === "\r" && buffer[i + 1] === "\n") i++;
      start = i + 1;
      if (line === "") dispatch(out);
      else applyLine(line, pending);
    }
    buffer = buffer.slice(start);
  };
  return {
    push(text, out) {
      buffer += text;
      consume(out, false);
    },
    end(out) {
      consume(out, true);
      // Whatever is left never got its blank line: dropped, as the standard says.
      buffer = "";
      pending = fresh();
    },
  };
}

/** `sseFramer` as a stream transform. */
export function sseEvents(): TransformStream<string, SseEvent> {
  return framerStream(sseFramer());
}
