/**
 * A minimal OpenAI Chat Completions server for the turn benchmarks: answers
 * every request (no queue to fill, unlike tests/support/fake_provider.ts), so
 * thousands of turns can run against it. `GET /v1/models` lists one model;
 * `POST /v1/chat/completions` answers buffered JSON, or server-sent events
 * when the body asks for `stream: true`, after `delayMs`, with stream chunks
 * `chunkGapMs` apart. The last request body is kept so the benchmark can
 * replay the very request the service sent. A buffered request with
 * `x-bench-hold-ms` is held that long more, and its answer's `Server-Timing`
 * gives the handler's time: the rest of the client's time is the transport
 * after a pause, as a turn's client meets it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export const BENCH_MODEL = "gpt-4o-mini";

export interface ChatProviderPace {
  /** Wait before the status line of a chat answer. */
  delayMs: number;
  /** Text deltas in a streamed answer. */
  chunks: number;
  /** Wait between two streamed deltas. */
  chunkGapMs: number;
}

export interface ChatProvider {
  url: string;
  pace: ChatProviderPace;
  /** The body of the latest chat request, as received. */
  lastBody(): string | undefined;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const JSON_HEADERS = { "content-type": "application/json" };

/** A buffered Chat Completions answer carrying `message` (the assistant's fields). */
export const completion = (message: Record<string, unknown>, finishReason: string) =>
  JSON.stringify({
    id: "chatcmpl-bench",
    object: "chat.completion",
    created: 1741569952,
    model: BENCH_MODEL,
    choices: [{
      index: 0,
      message: { role: "assistant", ...message },
      finish_reason: finishReason,
    }],
    usage: { prompt_tokens: 24, completion_tokens: 7, total_tokens: 31 },
  });

const COMPLETION = completion({ content: "Done: the parser is fixed." }, "stop");

const chunk = (delta: Record<string, unknown>, finish: string | null, usage?: unknown) =>
  `data: ${
    JSON.stringify({
      id: "chatcmpl-bench",
      object: "chat.completion.chunk",
      created: 1741569952,
      model: BENCH_MODEL,
      choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }],
      usage: usage ?? null,
    })
  }\n\n`;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Uint8Array[] = [];
    req.on("data", (part: Uint8Array) => parts.push(part));
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}

/**
 * Now on the clock every process of this machine shares (ms since the epoch,
 * with performance.now()'s resolution): each streamed delta carries its send
 * time as `@<ms>`, so a client anywhere on the machine measures the delay of
 * each frame as its receive time minus that, on one clock.
 */
export const sharedClockMs = () => performance.timeOrigin + performance.now();

/** The send time a delta's text carries (see `sharedClockMs`); null when it carries none. */
export function sentAtMs(text: string): number | null {
  const match = /@(\d+\.\d+) /.exec(text);
  return match === null ? null : Number(match[1]);
}

async function stream(res: ServerResponse, pace: ChatProviderPace): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" });
  res.write(chunk({ role: "assistant", content: "" }, null));
  for (let i = 0; i < pace.chunks; i++) {
    if (i > 0) await sleep(pace.chunkGapMs);
    if (res.destroyed) return;
    res.write(chunk({ content: `part ${i} @${sharedClockMs().toFixed(3)} ` }, null));
  }
  res.write(chunk({}, "stop"));
  res.write(chunk({}, null, { prompt_tokens: 24, completion_tokens: pace.chunks }));
  res.end("data: [DONE]\n\n");
}

/**
 * `answer` makes a buffered answer's body from the request's (by default one
 * fixed text completion).
 */
export async function startChatProvider(
  pace: Partial<ChatProviderPace> = {},
  answer: (body: string) => string = () => COMPLETION,
): Promise<ChatProvider> {
  const current: ChatProviderPace = { delayMs: 0, chunks: 5, chunkGapMs: 0, ...pace };
  const sockets = new Set<Socket>();
  let last: string | undefined;
  const server = createServer(async (req, res) => {
    const received = performance.now();
    const body = await readBody(req);
    if (req.method === "GET" && req.url?.startsWith("/v1/models")) {
      res.writeHead(200, JSON_HEADERS);
      res.end(JSON.stringify({ object: "list", data: [{ id: BENCH_MODEL, object: "model" }] }));
      return;
    }
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
      res.writeHead(404, JSON_HEADERS);
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
      return;
    }
    last = body;
    if (current.delayMs > 0) await sleep(current.delayMs);
    if (res.destroyed) return;
    if ((JSON.parse(body) as { stream?: boolean }).stream === true) {
      await stream(res, current);
      return;
    }
    const hold = Number(req.headers["x-bench-hold-ms"] ?? 0);
    if (hold > 0) {
      await sleep(hold);
      const held = (performance.now() - received).toFixed(2);
      res.writeHead(200, { ...JSON_HEADERS, "server-timing": `hold;dur=${held}` });
    } else res.writeHead(200, JSON_HEADERS);
    res.end(answer(body));
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    pace: current,
    lastBody: () => last,
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
