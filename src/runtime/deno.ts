// The Deno entry: the only file that knows it runs on Deno.
import { runCli, type Serve } from "../main.ts";

const serve: Serve = ({ hostname, port, handler }) =>
  new Promise((resolve) => {
    const server = Deno.serve({
      hostname,
      port,
      onListen: (addr) =>
        resolve({
          url: `http://${addr.hostname}:${addr.port}`,
          close: () => server.shutdown(),
        }),
    }, (request, info) => {
      const peer = info.remoteAddr;
      return handler(
        request,
        peer.transport === "tcp" ? { remoteAddress: peer.hostname } : undefined,
      );
    });
  });

// `gc` is there when the start task passes `--v8-flags=--expose-gc` (deno.json).
const gc = (globalThis as { gc?: () => void }).gc;

await runCli(Deno.args, Deno.env.toObject(), { serve, collectGarbage: gc && (() => gc()) });
