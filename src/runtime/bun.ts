// The Bun entry: the only file that knows it runs on Bun.
import initdbWasm from "@electric-sql/pglite/initdb.wasm" with { type: "file" };
import pgliteData from "@electric-sql/pglite/pglite.data" with { type: "file" };
import pgliteWasm from "@electric-sql/pglite/pglite.wasm" with { type: "file" };
import dataDirTemplate from "../store/pglite_template/datadir.tar.br" with { type: "file" };
import { webFiles } from "../../web/embed.ts";
import { webAssets } from "../http/web_assets.ts";
import { runCli, type Serve } from "../main.ts";
import type { PgliteAssets } from "../store/pglite_driver.ts";

// The little of Bun's API this entry uses, so the Deno type check needs no Bun types.
declare const Bun: {
  argv: string[];
  env: Record<string, string | undefined>;
  file(path: string): Blob;
  serve(options: {
    hostname: string;
    port: number;
    fetch: (request: Request, server: BunServer) => Promise<Response>;
    maxRequestBodySize: number;
    idleTimeout: number;
  }): BunServer;
};
interface BunServer {
  hostname: string;
  port: number;
  stop(closeActive: boolean): Promise<void>;
  requestIP(request: Request): { address: string } | null;
}

const serve: Serve = ({ hostname, port, handler }) => {
  const server = Bun.serve({
    hostname,
    port,
    fetch: (request, server) => {
      const peer = server.requestIP(request);
      return handler(request, peer === null ? undefined : { remoteAddress: peer.address });
    },
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

// Imported as files, PGlite's assets and the store's template data directory are embedded
// by `bun build --compile`, so the single-file binary runs the embedded database without
// node_modules.
const pgliteAssets = async (): Promise<PgliteAssets> => ({
  pgliteWasmModule: await WebAssembly.compile(await Bun.file(pgliteWasm).arrayBuffer()),
  initdbWasmModule: await WebAssembly.compile(await Bun.file(initdbWasm).arrayBuffer()),
  fsBundle: Bun.file(pgliteData),
  dataDirTemplate: Bun.file(dataDirTemplate),
});

// The console and API reference, imported as files by web/embed.ts (`deno task
// console:build` writes it), ride along in the single-file binary the same way.
const embeddedWebAssets = () =>
  webAssets(Object.fromEntries(
    Object.entries(webFiles).map((
      [name, path],
    ) => [name, async () => new Uint8Array(await Bun.file(path).arrayBuffer())]),
  ));

// `deno task build` bundles the embedded store's worker as a second entry point, which a
// single-file binary keeps beside this one under the entries' common folder (src/).
const compiled = import.meta.url.includes("/$bunfs/");

await runCli(Bun.argv.slice(2), { ...Bun.env }, {
  serve,
  pgliteAssets,
  ...(compiled ? { pgliteWorker: "./store/pglite_worker.ts" } : {}),
  webAssets: embeddedWebAssets,
});
