/**
 * The demo provider as a process: `main.ts [--config FILE] [--port N]
 * [--chunk-delay-ms N]`. Serves the models the demo configuration declares, on
 * the port of their `base_url` unless `--port` says otherwise (0: any free
 * port), and prints `demo provider listening on <base URL>` once it listens.
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { DEMO_CONFIG, readDemoConfig } from "../demo_config.ts";
import { startProvider } from "./server.ts";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    config: { type: "string", default: DEMO_CONFIG },
    port: { type: "string" },
    "chunk-delay-ms": { type: "string", default: "15" },
  },
});
const config = await readDemoConfig(values.config);
const port = values.port === undefined ? Number(config.providerUrl.port) : Number(values.port);
const provider = await startProvider({
  models: config.models,
  host: config.providerUrl.hostname,
  port,
  chunkDelayMs: Number(values["chunk-delay-ms"]),
});
console.log(`demo provider listening on ${provider.baseUrl}`);

const stop = () => void provider.close().then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
// A launcher killed outright cannot stop its children: the provider then goes by itself.
const launcher = process.ppid;
setInterval(() => process.ppid !== launcher && stop(), 1000);
