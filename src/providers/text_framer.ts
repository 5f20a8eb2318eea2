/**
 * A framer turns decoded text, pushed in pieces split anywhere, into records:
 * the SSE and NDJSON parsers are framers, used directly on a provider's body
 * (no stream stage per chunk) or as a stream transform where a stream is wanted.
 */
export interface TextFramer<T> {
  /** Appends the records that `text` completes to `out`. */
  push(text: string, out: T[]): void;
  /** The input ended: appends what its end completes. */
  end(out: T[]): void;
}

export function framerStream<T>(framer: TextFramer<T>): TransformStream<string, T> {
  const out: T[] = [];
  const drain = (controller: TransformStreamDefaultController<T>) => {
    for (const record of out) controller.enqueue(record);
    out.length = 0;
  };
  return new TransformStream<string, T>({
    transform(chunk, controller) {
      framer.push(chunk, out);
      drain(controller);
    },
    flush(controller) {
      framer.end(out);
      drain(controller);
    },
  });
}
