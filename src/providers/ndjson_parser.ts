/**
 * Newline-delimited JSON framing as a pure stream transform: decoded text in,
 * one non-empty line out per record. Parsing the JSON is left to the adapter,
 * which knows what a malformed record means for its protocol.
 */
export function ndjsonLines(): TransformStream<string, string> {
  let buffer = "";
  const emit = (line: string, controller: TransformStreamDefaultController<string>) => {
    const trimmed = line.endsWith("\r") ? line.slice(0, -1) : line;
    if (trimmed.trim() !== "") controller.enqueue(trimmed);
  };
  return new TransformStream<string, string>({
    transform(chunk, controller) {
      buffer += chunk;
      let newline = buffer.indexOf("\n");
      while (newline !== -1) {
        emit(buffer.slice(0, newline), controller);
        buffer = buffer.slice(newline + 1);
        newline = buffer.indexOf("\n");
      }
    },
    flush(controller) {
      // A last record without its newline is still passed on; if the stream was
      // cut inside it, it fails to parse and the adapter reports that.
      emit(buffer, controller);
      buffer = "";
    },
  });
}
