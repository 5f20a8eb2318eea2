/**
 * The sockets of our postgres.js connections, opened here (its `socket`
 * option) to notice one of its failures at once. In postgres.js 3.4.9 a
 * connection whose socket closes while a write is waiting for the next turn
 * of the event loop keeps the handle of that cancelled write: it never sends
 * anything again, so each later attempt on it sends no startup message and
 * hangs until the connect timeout (its pull request #1214 and the issues it
 * fixes). A server crash under load leaves such connections behind often
 * enough: a request then waited the whole connect timeout after the server's
 * return. postgres.js writes its startup message on a socket within one turn
 * of the event loop of getting it; a socket it wrote nothing on by then
 * belongs to such a connection, and `onSilent` hears of it at once (the
 * caller replaces the pool, as it would after the timeout).
 */
import { connect, type Socket } from "node:net";

/** What postgres.js passes the `socket` option: its parsed options. */
export interface SocketTarget {
  host: string[];
  port: number[];
  /** A Unix socket's path, when the URL names one. */
  path?: string | false;
}

/** A socket postgres.js wrote nothing on this long after getting it is silent (checked after the immediates queued by then). */
export const SILENT_AFTER_MS = 50;

/** A `socket` option for postgres.js: one factory per pool, `onSilent` told of a silent connection. */
export function watchedSockets(onSilent: () => void): (target: SocketTarget) => Socket {
  let next = 0;
  return (target) => {
    let socket: Socket;
    if (target.path) {
      socket = connect(target.path);
    } else {
      // Several hosts are tried in turn, as postgres.js does with its own sockets.
      const i = next++ % target.host.length;
      socket = connect(target.port[i] ?? target.port[0], target.host[i]);
      Object.assign(socket, { host: target.host[i], port: target.port[i] ?? target.port[0] });
    }
    // postgres.js drops every listener of a socket once it closed; under Bun a reset can still
    // report an error after that, which with no listener left would end the process.
    const ignore = () => {};
    socket.on("error", ignore);
    const removeAll = socket.removeAllListeners;
    socket.removeAllListeners = function (this: Socket, ...args: [string?]) {
      const result = removeAll.apply(this, args as [string]);
      if (args[0] === undefined || args[0] === "error") this.on("error", ignore);
      return result;
    } as Socket["removeAllListeners"];
    let wrote = false;
    const write = socket.write;
    socket.write = function (this: Socket, ...args: Parameters<Socket["write"]>) {
      wrote = true;
      return write.apply(this, args);
    } as Socket["write"];
    const timer = setTimeout(() => {
      if (wrote) return;
      // Its write may have been queued just before the timer came due: it runs first.
      setImmediate(() => {
        if (!wrote && !socket.destroyed) onSilent();
      });
    }, SILENT_AFTER_MS);
    (timer as { unref?: () => void }).unref?.();
    return socket;
  };
}

/**
 * The option itself, to spread into postgres.js's options: it documents
 * `socket` (README, "Custom socket") but its type declarations leave it out.
 */
export function watchedSocketOption(onSilent: () => void): Record<never, never> {
  return { socket: watchedSockets(onSilent) };
}
