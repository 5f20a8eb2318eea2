/**
 * Portkey's AI gateway, the peer: installed into bench/peers/node_modules from
 * the committed package-lock.json (never a dependency of the service), started
 * under Node.js as its README says, on a free port.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const folder = fileURLToPath(new URL("./", import.meta.url));
const modules = join(folder, "node_modules");
const entry = join(modules, "@portkey-ai/gateway/build/start-server.js");

const versionIn = (file: string) => JSON.parse(readFileSync(file, "utf8")).version as string;

/** Installs the pinned peers unless node_modules already holds exactly those versions. */
export function installPeers(): void {
  const pinned = JSON.parse(readFileSync(join(folder, "package.json"), "utf8"));
  const wanted: [string, string][] = [
    ["@portkey-ai/gateway", pinned.dependencies["@portkey-ai/gateway"]],
    ...Object.entries(pinned.overrides as Record<string, string>),
  ];
  const current = wanted.every(([name, version]) => {
    const file = join(modules, name, "package.json");
    return existsSync(file) && versionIn(file) === version;
  });
  if (current) return;
  console.error("installing the peers (npm ci in bench/peers) …");
  execFileSync("npm", [
    "ci",
    "--prefix",
    folder,
    "--no-audit",
    "--no-fund",
    "--ignore-scripts",
  ], {
    stdio: ["ignore", "ignore", "inherit"],
  });
}

export const nodeVersion = () => execFileSync("node", ["--version"], { encoding: "utf8" }).trim();

export const portkeyVersion = () => versionIn(join(modules, "@portkey-ai/gateway/package.json"));

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface PeerProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts Portkey (it reads only `--port=<p>`) and waits until it answers. */
export async function startPortkey(): Promise<PeerProcess> {
  const port = await freePort();
  const child = spawn("node", [entry, `--port=${port}`, "--headless"], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) {
        return resolve();
      }
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  for (let tries = 0; tries < 300; tries++) {
    if (child.exitCode !== null) {
      throw new Error(`Portkey exited with ${child.exitCode}`);
    }
    try {
      await (await fetch(url)).text();
      return { url, pid: child.pid!, stop };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  await stop();
  throw new Error("Portkey did not answer within 30 s");
}

/** The headers that route a Chat Completions request through Portkey to `providerUrl`. */
export function portkeyHeaders(
  providerUrl: string,
  apiKey: string,
): Record<string, string> {
  return {
    "content-type": "application/json",
    "x-portkey-provider": "openai",
    "x-portkey-custom-host": `${providerUrl}/v1`,
    authorization: `Bearer ${apiKey}`,
  };
}
