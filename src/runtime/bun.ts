// The Bun entry: the only file that knows it runs on Bun.
import { runCli, type Serve } from "../main.ts";

// The little of Bun's API this entry uses, so the Deno type check needs no Bun types.
declare const Bun: {
  argv: string[];
  env: Record<string, string | undefined>;
  serve(options: {
    hostname: string;
    port: number;
    fetch: (request: Request) => Promise<Response>;
    maxRequestBodySize: number;
    idleTimeout: number;
  }): { hostname: string; port: number; stop(closeActive: boolean): Promise<void> };
};

const serve: Serve = ({ hostname, port, handler }) => {
  const server = Bun.serve({
    hostname,
    port,
    fetch: handler,
    // The service enforces its own body limit (413 in the error envelope) and
    // streams turns for minutes, so Bun's own limits stay out of the way.
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    idleTimeout: 0,
  });
  return Promise.resolve({
    url: `http://${server.hostname}:${server.port}`,
    close: () => server.stop(true),
  });
};

await runCli(Bun.argv.slice(2), { ...Bun.env }, serve);
