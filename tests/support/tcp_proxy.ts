/**
 * A TCP proxy in front of a server (PostgreSQL here) that a test can break in
 * two ways and restore:
 * - `cut` destroys every open connection and stops listening, so new
 *   connections are refused, as when the database goes down;
 * - `blackHole` keeps accepting and reading but never answers, on the
 *   connections open now and on new ones, as a stalled server or a network
 *   path that drops packets does: nothing ever fails, everything waits.
 * `sent` is every byte clients sent through it, in order of arrival.
 * `restore` forwards new connections again. Connections stalled by a black hole
 * stay stalled (their bytes are gone, as a middlebox that lost their state
 * would have it): a client must give them up by itself. Built on node:net, so
 * it runs under Deno and Bun.
 */
import { Buffer } from "node:buffer";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

export interface TcpProxy {
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  proxied(url: string): string;
  cut(): Promise<void>;
  blackHole(): void;
  restore(): Promise<void>;
  sent(): Buffer;
  close(): Promise<void>;
}

export async function startTcpProxy(
  targetHost: string,
  targetPort: number,
): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  /** How to stall each forwarded connection, while it is open. */
  const stalls = new Set<() => void>();
  let blackHoled = false;
  const sent: Buffer[] = [];
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  };
  /** Reads whatever comes and drops it; never writes. */
  const swallow = (client: Socket) => client.resume();
  const newServer = () =>
    createServer((client) => {
      track(client);
      client.on("data", (chunk: Buffer) => sent.push(chunk));
      if (blackHoled) return swallow(client);
      const upstream = createConnection({ host: targetHost, port: targetPort });
      track(upstream);
      client.pipe(upstream);
      upstream.pipe(client);
      const closeClient = () => client.destroy();
      const stall = () => {
        client.unpipe(upstream);
        upstream.unpipe(client);
        upstream.off("close", closeClient);
        upstream.destroy();
        swallow(client);
      };
      stalls.add(stall);
      client.on("close", () => {
        stalls.delete(stall);
        upstream.destroy();
      });
      upstream.on("close", closeClient);
    });
  const listen = (server: Server, port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject);
      server.listen(
        port,
        "127.0.0.1",
        () => resolve((server.address() as AddressInfo).port),
      );
    });
  let server: Server | null = newServer();
  const port = await listen(server, 0);

  const stop = async () => {
    const closing = server;
    server = null;
    for (const socket of sockets) socket.destroy();
    if (closing) {
      await new Promise<void>((resolve) => closing.close(() => resolve()));
    }
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
    blackHole() {
      blackHoled = true;
      for (const stall of stalls) stall();
      stalls.clear();
    },
    async restore() {
      blackHoled = false;
      if (server !== null) return;
      server = newServer();
      await listen(server, port);
    },
    sent: () => Buffer.concat(sent),
    close: stop,
  };
}

/** A proxy in front of the server a database URL names. */
export function startTcpProxyFor(url: string): Promise<TcpProxy> {
  const target = new URL(url);
  return startTcpProxy(target.hostname, Number(target.port || 5432));
}
