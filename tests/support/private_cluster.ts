/**
 * A PostgreSQL cluster of one test's or benchmark's own, on a free port, run
 * as the `postgres` user with the Debian-installed programs: it can be stopped
 * in immediate mode (a crash: no checkpoint, the next start replays the WAL)
 * and started again without touching anyone else's server. Needs root and
 * Linux (`runuser`).
 */
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { promisify } from "node:util";
import postgres from "postgres";

const run = promisify(execFile);

export interface PrivateCluster {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  url: string;
  /** Starts the server and resolves once `pg_ctl` sees it accept connections. */
  start(): Promise<void>;
  /** Starts the server without waiting (see `whenAccepting`). */
  startNoWait(): Promise<void>;
  /** Stops the server in immediate mode (its processes quit at once, as in a crash). */
  crash(): Promise<void>;
  /** Stops the server if it runs, and removes its directory. */
  remove(): Promise<void>;
  /** The server's log file. */
  log: string;
}

/** Whether this process can run a private cluster: Linux, root, PostgreSQL's programs installed. */
export function privateClusterPossible(): boolean {
  return process.platform === "linux" && process.getuid?.() === 0 && postgresBin() !== null;
}

/** The newest PostgreSQL's programs installed the Debian way, if any. */
export function postgresBin(): string | null {
  try {
    const versions = execFileSync("ls", ["/usr/lib/postgresql"]).toString()
      .trim().split("\n");
    const newest = versions.map(Number).filter((v) => v > 0).sort((a, b) => b - a)[0];
    return newest === undefined ? null : `/usr/lib/postgresql/${newest}/bin`;
  } catch {
    return null;
  }
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A fresh cluster (initdb, trust auth, fsync off: a crash of the server, not
 * of the machine, loses nothing the server acknowledged), not yet started.
 */
export async function createPrivateCluster(
  o: { settings?: Record<string, string | number> } = {},
): Promise<PrivateCluster> {
  const bin = postgresBin();
  if (bin === null) throw new Error("no PostgreSQL programs under /usr/lib/postgresql");
  const base = mkdtempSync(join(tmpdir(), "switchyard-cluster-"));
  const data = join(base, "data");
  execFileSync("chown", ["postgres", base]);
  const asPostgres = (program: string, args: string[]) =>
    run("runuser", ["-u", "postgres", "--", join(bin, program), ...args]);
  await asPostgres("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]);
  const port = await freePort();
  const settings = { listen_addresses: "127.0.0.1", fsync: "off", ...o.settings };
  const options = [
    `-p ${port} -k ${base}`,
    ...Object.entries(settings).map(([k, v]) => `-c ${k}=${v}`),
  ].join(" ");
  // The server's output goes to a file: on a pipe, waiting for pg_ctl would wait for the server.
  const start = (wait: boolean) =>
    asPostgres("pg_ctl", [
      "-D",
      data,
      "-o",
      options,
      "-l",
      join(base, "log"),
      wait ? "-w" : "-W",
      "-s",
      "start",
    ]).then(() => {});
  const crash = () =>
    asPostgres("pg_ctl", ["-D", data, "-m", "immediate", "-w", "-s", "stop"]).then(() => {});
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: () => start(true),
    startNoWait: () => start(false),
    crash,
    log: join(base, "log"),
    async remove() {
      await crash().catch(() => {/* not running */});
      rmSync(base, { recursive: true, force: true });
    },
  };
}

/**
 * Resolves with the moment (performance.now()) the server first answered a
 * query, tried every `everyMs` on a fresh connection each time (a client's
 * reconnect backoff would blur the moment): the start of the attempt that
 * succeeded, at most one failed attempt and `everyMs` after the server's return.
 */
export async function whenAccepting(
  url: string,
  o: { everyMs?: number; withinMs?: number } = {},
): Promise<number> {
  const everyMs = o.everyMs ?? 5;
  const since = performance.now();
  for (;;) {
    const tried = performance.now();
    const probe = postgres(url, { max: 1, connect_timeout: 1, onnotice: () => {} });
    try {
      await probe`SELECT 1`;
      return tried;
    } catch {
      if (performance.now() - since > (o.withinMs ?? 30_000)) {
        throw new Error("the server did not accept connections");
      }
    } finally {
      probe.end({ timeout: 0 }).catch(() => {});
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
