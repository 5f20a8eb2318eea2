/**
 * Serves a web-standard handler on a free port of 127.0.0.1 through node:http,
 * so a test can put the in-process service (with its test clock and fake
 * providers) behind a real socket under Deno and Bun alike: for the client,
 * the command-line client in a child process, and a browser.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface Served {
  url: string;
  close(): Promise<void>;
}

function toRequest(req: IncomingMessage, base: string, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  const body = hasBody
    ? new ReadableStream<Uint8Array>({
      start(controller) {
        req.on("data", (chunk: Uint8Array) => controller.enqueue(new Uint8Array(chunk)));
        req.on("end", () => controller.close());
        req.on("error", (error) => controller.error(error));
      },
    })
    : undefined;
  return new Request(new URL(req.url ?? "/", base), {
    method: req.method,
    headers,
    body,
    signal,
    // @ts-ignore: a streamed request body must say so under Node-compatible fetch
    duplex: "half",
  });
}

async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(response.status, headers);
  if (response.body === null) return void res.end();
  res.flushHeaders();
  const reader = response.body.getReader();
  res.on("close", () => void reader.cancel().catch(() => {}));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch { /* the client went away */ }
  res.end();
}

export async function serveHandler(
  handler: (request: Request) => Promise<Response>,
): Promise<Served> {
  const sockets = new Set<Socket>();
  let base = "";
  const server = createServer(async (req, res) => {
    const aborted = new AbortController();
    res.on("close", () => aborted.abort());
    await writeResponse(await handler(toRequest(req, base, aborted.signal)), res);
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
