/**
 * Newline-delimited JSON framing as a pure stream transform: decoded text in,
 * one non-empty line out per record. Parsing the JSON is left to the adapter,
 * which knows what a malformed record means for its protocol.
 */
import { framerStream, type TextFramer } from "./text_framer.ts";
export function ndjsonFramer(): TextFramer<string> {
  let buffer = "";
  const emit = (line: string, out: string[]) => {
    const trimmed = line.endsWith("\r") ? line.slice(0, -1) : line;
    if (trimmed.trim() !== "") out.push(trimmed);
  };
  return {
    push(text, out) {
      buffer += text;
      let newline = buffer.indexOf("\n");
      while (newline !== -1) {
        emit(buffer.slice(0, newline), out);
        buffer = buffer.slice(newline + 1);
        newline = buffer.indexOf("\n");
      }
    },
    end(out) {
      // A last record without its newline is still passed on; if the stream was
      // cut inside it, it fails to parse and the adapter reports that.
      emit(buffer, out);
      buffer = "";
    },
  };
}

/** `ndjsonFramer` as a stream transform. */
export function ndjsonLines(): TransformStream<string, string> {
  return framerStream(ndjsonFramer());
}
