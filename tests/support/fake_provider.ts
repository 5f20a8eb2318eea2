/**
 * A fake model provider on 127.0.0.1 that replays recorded wire exchanges
 * (fixtures/providers/<provider>/<case>.json) over real HTTP, so adapters and
 * listings are tested on the exact bytes providers send. Built on node:http so
 * the same file runs under Deno and Bun.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { readFile } from "node:fs/promises";

export interface FixtureResponse {
  status: number;
  headers?: Record<string, string>;
  /** A buffered JSON body (serialised as JSON), or a string written as is. */
  body?: unknown;
  /** Raw chunks written one at a time (SSE or NDJSON exactly as sent). */
  chunks?: string[];
  chunk_delay_ms?: number;
  /** Delay before the status line is written. */
  delay_ms?: number;
  /** Destroy the socket after the last chunk instead of ending cleanly. */
  cut?: boolean;
}

export interface FixtureRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface Fixture {
  description: string;
  request: FixtureRequest;
  response: FixtureResponse;
  expected: unknown;
}

export interface RecordedRequest {
  method: string;
  path: string;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  body: string;
  json: unknown;
}

export interface FakeProvider {
  url: string;
  enqueue(response: FixtureResponse): void;
  enqueueFixture(provider: string, name: string): Promise<Fixture>;
  requests: RecordedRequest[];
  /** Resolves when the client closed a connection before its response ended. */
  clientClosed(): Promise<void>;
  close(): Promise<void>;
}

const FIXTURE_ROOT = new URL("../../fixtures/providers/", import.meta.url);

export async function loadFixture(provider: string, name: string): Promise<Fixture> {
  const text = await readFile(new URL(`${provider}/${name}.json`, FIXTURE_ROOT), "utf8");
  return JSON.parse(text) as Fixture;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Uint8Array[] = [];
    req.on("data", (part: Uint8Array) => parts.push(part));
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}

function parseJson(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) {
      out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
    }
  }
  return out;
}

const NOTHING_QUEUED: FixtureResponse = {
  status: 404,
  headers: { "content-type": "application/json" },
  body: { error: { message: "fake provider: nothing queued for this request" } },
};

export interface FakeProviderOptions {
  /** Port to bind; a free one when absent. */
  port?: number;
  /**
   * Accept `POST /__enqueue` with a fixture response, or `{ provider, name }`
   * naming a recorded fixture, for humans driving the fake by hand.
   */
  control?: boolean;
}

async function controlAnswer(body: string): Promise<FixtureResponse> {
  const input = JSON.parse(body);
  if (typeof input.provider === "string") {
    return (await loadFixture(input.provider, String(input.name))).response;
  }
  return input as FixtureResponse;
}

export async function startFakeProvider(options: FakeProviderOptions = {}): Promise<FakeProvider> {
  const queue: FixtureResponse[] = [];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const closeWaiters: Array<() => void> = [];
  let closedEarly = 0;

  const noteEarlyClose = () => {
    closedEarly++;
    for (const wake of closeWaiters.splice(0)) wake();
  };

  const answer = async (res: ServerResponse, response: FixtureResponse) => {
    let finished = false;
    res.on("close", () => {
      if (!finished) noteEarlyClose();
    });
    if (response.delay_ms) await sleep(response.delay_ms);
    if (res.destroyed) return;
    const headers = { ...(response.headers ?? {}) };
    const chunks = response.chunks;
    if (chunks === undefined) {
      const body = response.body === undefined
        ? ""
        : typeof response.body === "string"
        ? response.body
        : JSON.stringify(response.body);
      res.writeHead(response.status, headers);
      finished = true;
      res.end(body);
      return;
    }
    res.writeHead(response.status, headers);
    res.flushHeaders();
    for (let i = 0; i < chunks.length; i++) {
      if (i > 0 && response.chunk_delay_ms) await sleep(response.chunk_delay_ms);
      if (res.destroyed) return;
      res.write(chunks[i]);
    }
    if (response.cut) {
      // Let the last chunk reach the client before the socket is torn down.
      await sleep(20);
      finished = true;
      res.socket?.destroy();
      return;
    }
    finished = true;
    res.end();
  };

  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    if (options.control && req.method === "POST" && req.url === "/__enqueue") {
      try {
        queue.push(await controlAnswer(body));
        res.writeHead(204).end();
      } catch (error) {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `cannot enqueue: ${error}` } }));
      }
      return;
    }
    requests.push({
      method: req.method ?? "",
      path: req.url ?? "",
      headers: headersOf(req),
      body,
      json: parseJson(body),
    });
    await answer(res, queue.shift() ?? NOTHING_QUEUED);
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue(response) {
      queue.push(response);
    },
    async enqueueFixture(provider, name) {
      const fixture = await loadFixture(provider, name);
      queue.push(fixture.response);
      return fixture;
    },
    clientClosed() {
      if (closedEarly > 0) return Promise.resolve();
      return new Promise((resolve) => closeWaiters.push(resolve));
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
