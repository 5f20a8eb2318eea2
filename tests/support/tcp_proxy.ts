/**
 * A TCP proxy in front of a server (PostgreSQL here) that a test can cut and
 * restore: `cut` destroys every open connection and stops listening, so new
 * connections are refused, as when the database goes down; `restore` listens
 * on the same port again. Built on node:net, so it runs under Deno and Bun.
 */
import { createConnection, createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

export interface TcpProxy {
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  proxied(url: string): string;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  };
  const newServer = () =>
    createServer((client) => {
      track(client);
      const upstream = createConnection({ host: targetHost, port: targetPort });
      track(upstream);
      client.pipe(upstream);
      upstream.pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
  const listen = (server: Server, port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
    });
  let server: Server | null = newServer();
  const port = await listen(server, 0);

  const stop = async () => {
    const closing = server;
    server = null;
    for (const socket of sockets) socket.destroy();
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
  };
  return {
    port,
    proxied(url) {
      const u = new URL(url);
      u.hostname = "127.0.0.1";
      u.port = String(port);
      return u.toString();
    },
    cut: stop,
    async restore() {
      if (server !== null) return;
      server = newServer();
      await listen(server, port);
    },
    close: stop,
  };
}
