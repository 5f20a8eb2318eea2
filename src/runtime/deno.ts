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

await runCli(Deno.args, Deno.env.toObject(), { serve });
