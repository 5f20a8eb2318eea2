/**
 * One HTTP call to a provider, as a resource with a lifecycle: the timeout
 * covers the whole call (a stalled stream included), the caller's signal stops
 * the upstream fetch at once, and every transport failure comes out as a
 * categorised `ProviderError`. Adapters only build bodies and read events.
 */
import { ProviderError } from "./errors.ts";
import { type ErrorDetailReader, errorFromStatus, redact } from "./error_summary.ts";
import type { ProviderTarget } from "./types.ts";
import { type SseEvent, sseFramer } from "./sse_parser.ts";
import { ndjsonFramer } from "./ndjson_parser.ts";
import type { TextFramer } from "./text_framer.ts";

const MAX_ERROR_BODY = 64 * 1024;
const CLOSED = Symbol("closed");

export class ProviderCall {
  readonly #target: ProviderTarget;
  readonly #controller = new AbortController();
  readonly #callerSignal?: AbortSignal;
  readonly #timer: ReturnType<typeof setTimeout>;
  readonly #stopped: Promise<never>;
  #timedOut = false;
  #closed = false;
  #onCallerAbort = () => this.#controller.abort();

  constructor(target: ProviderTarget, signal?: AbortSignal) {
    this.#target = target;
    this.#callerSignal = signal;
    this.#timer = setTimeout(() => {
      this.#timedOut = true;
      this.#controller.abort();
    }, target.timeoutMs);
    // Reads race this promise, so a stalled body cannot outlive the deadline
    // even where a runtime does not fail pending reads on abort.
    this.#stopped = new Promise<never>((_, reject) => {
      // Closing after a complete answer aborts too; nobody reads that rejection, so no error is made.
      this.#controller.signal.addEventListener(
        "abort",
        () => reject(this.#closed ? CLOSED : this.#stopError()),
      );
    });
    this.#stopped.catch(() => {});
    if (signal?.aborted) this.#controller.abort();
    else signal?.addEventListener("abort", this.#onCallerAbort, { once: true });
  }

  get provider(): string {
    return this.#target.provider;
  }

  /** POSTs JSON; a non-2xx answer is read, summarised and thrown. */
  async post(
    path: string,
    headers: Record<string, string>,
    body: unknown,
    readDetail: ErrorDetailReader,
  ): Promise<Response> {
    const url = joinUrl(this.#target.baseUrl, path);
    this.#target.onSend?.();
    let response: Response;
    try {
      response = await Promise.race([
        fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body: JSON.stringify(body),
          signal: this.#controller.signal,
        }),
        this.#stopped,
      ]);
    } catch (error) {
      throw this.#translate(error, "could not reach");
    }
    this.#target.onHeaders?.();
    if (!response.ok) {
      const text = await this.#readText(response, MAX_ERROR_BODY);
      throw errorFromStatus(
        this.provider,
        response.status,
        text,
        readDetail,
        this.#target.apiKey,
      );
    }
    return response;
  }

  /** The whole body as text (a buffered answer), read by the runtime in one go. */
  async readText(response: Response): Promise<string> {
    try {
      return await Promise.race([response.text(), this.#stopped]);
    } catch (error) {
      throw this.#translate(error, "lost the answer from");
    }
  }

  /** The body as server-sent events. */
  sse(response: Response): AsyncGenerator<SseEvent> {
    return this.#iterate(response, sseFramer());
  }

  /** The body as newline-delimited records. */
  ndjson(response: Response): AsyncGenerator<string> {
    return this.#iterate(response, ndjsonFramer());
  }

  /** Ends the call: clears the deadline and drops the connection if still open. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#callerSignal?.removeEventListener("abort", this.#onCallerAbort);
    // With a reason of its own: a bare abort() would make (and capture a stack for) an AbortError.
    if (!this.#controller.signal.aborted) this.#controller.abort(CLOSED);
  }

  /**
   * The body's records as they arrive. The bytes are decoded and framed here,
   * not through stream stages: with hundreds of streams open, each stage's
   * per-chunk promises are most of what a frame costs. Where the body is a
   * byte stream, one buffer of the call's own is read into again and again:
   * a default reader is handed a fresh 64 KB buffer for every chunk, however
   * small, which the collector then has to reclaim.
   */
  async *#iterate<T>(response: Response, framer: TextFramer<T>): AsyncGenerator<T> {
    if (response.body === null) return;
    const body = response.body;
    const read = bodyReader(body);
    const decoder = new TextDecoder();
    const records: T[] = [];
    try {
      while (true) {
        let step: ReadableStreamReadResult<Uint8Array>;
        try {
          step = await Promise.race([read.next(), this.#stopped]);
        } catch (error) {
          throw this.#translate(error, "lost the stream from");
        }
        if (step.done) {
          const rest = decoder.decode();
          if (rest !== "") framer.push(rest, records);
          framer.end(records);
        } else framer.push(decoder.decode(step.value, { stream: true }), records);
        // Taken one by one: a consumer that stops early leaves the rest unread.
        while (records.length > 0) yield records.shift()!;
        if (step.done) return;
      }
    } finally {
      read.cancel();
    }
  }

  async #readText(response: Response, limit: number): Promise<string> {
    let text = "";
    for await (const chunk of this.#iterate(response, passThrough)) {
      text += chunk;
      if (text.length >= limit) break;
    }
    return text;
  }

  #stopError(): unknown {
    if (this.#timedOut) {
      return new ProviderError(
        "timeout",
        `${this.provider} did not answer within ${this.#target.timeoutMs} ms`,
        this.provider,
      );
    }
    if (this.#callerSignal?.aborted) return this.#callerSignal.reason;
    return new ProviderError(
      "provider_unavailable",
      `call to ${this.provider} closed`,
      this.provider,
    );
  }

  /** Whatever went wrong on the wire, as the error the caller should see. */
  #translate(error: unknown, doing: string): unknown {
    if (error instanceof ProviderError) return error;
    if (this.#controller.signal.aborted) return this.#stopError();
    const detail = error instanceof Error ? error.message : String(error);
    return new ProviderError(
      "provider_unavailable",
      redact(`${this.provider}: ${doing} provider: ${detail}`, this.#target.apiKey),
      this.provider,
    );
  }
}

/** Bytes read into this, reused from read to read, cover any provider's stream chunk. */
const READ_BUFFER_BYTES = 16 * 1024;

interface BodyReader {
  next(): Promise<ReadableStreamReadResult<Uint8Array>>;
  cancel(): void;
}

/** A BYOB reader over one reused buffer where the body is a byte stream, else a default reader. */
function bodyReader(body: ReadableStream<Uint8Array>): BodyReader {
  let byob: ReadableStreamBYOBReader | null = null;
  try {
    byob = body.getReader({ mode: "byob" });
  } catch {
    // Not a byte stream: read as it comes.
  }
  if (byob === null) {
    const reader = body.getReader();
    return { next: () => reader.read(), cancel: () => void reader.cancel().catch(() => {}) };
  }
  const reader = byob;
  let buffer: ArrayBuffer = new ArrayBuffer(READ_BUFFER_BYTES);
  return {
    async next() {
      const step = await reader.read(new Uint8Array(buffer));
      // The buffer was handed over and comes back as the view's: read into it next time.
      if (step.value !== undefined) buffer = step.value.buffer as ArrayBuffer;
      return step.done
        ? { done: true, value: undefined }
        : { done: false, value: step.value as Uint8Array };
    },
    cancel: () => void reader.cancel().catch(() => {}),
  };
}

const passThrough: TextFramer<string> = {
  push: (text, out) => void out.push(text),
  end() {},
};

/** Appends a path to a base URL, keeping the base's own path (e.g. `/v1`). */
export function joinUrl(baseUrl: string, path: string): string {
  return baseUrl.replace(/\/+$/, "") + (path.startsWith("/") ? path : `/${path}`);
}
