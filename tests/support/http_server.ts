/**
 * Serves a web-standard handler over real HTTP on a free port of 127.0.0.1 with node:http, so
 * the same test runs under Deno and Bun (only the runtime entries know `Deno.serve`/`Bun.serve`).
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { Handler } from "../../src/http/handler.ts";

export interface Served {
  url: string;
  close(): Promise<void>;
}

async function toRequest(req: IncomingMessage, origin: string): Promise<Request> {
  const parts: Uint8Array[] = [];
  for await (const part of req) parts.push(part as Uint8Array);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
      headers.append(name, v);
    }
  }
  const method = req.method ?? "GET";
  const body = method === "GET" || method === "HEAD" ? undefined : Buffer.concat(parts);
  return new Request(`${origin}${req.url}`, { method, headers, body });
}

export async function serveHandler(handler: Handler): Promise<Served> {
  let origin = "";
  const server = createServer(async (req, res) => {
    const response = await handler(await toRequest(req, origin));
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) {
      for await (const chunk of response.body) res.write(chunk);
    }
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
