/**
 * How the demo launcher runs its children, under the runtime running it: the
 * service exactly as `deno task start` runs it (deno.json; `bun start` under
 * Bun), the demo provider with the little it needs, and an environment that
 * cannot point the service elsewhere.
 */
import process from "node:process";

const onBun = process.versions.bun !== undefined;

/** Deno's flags here are the start task's; a test keeps the two the same. */
export const SERVICE_ARGS: readonly string[] = onBun ? ["src/runtime/bun.ts"] : [
  "run",
  "--allow-net",
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-sys",
  "--v8-flags=--expose-gc,--max-semi-space-size=8",
  "src/runtime/deno.ts",
];

/** The allocator settings the start task gives the service (glibc reads them at exec). */
export const SERVICE_ENV: Readonly<Record<string, string>> = onBun ? {} : {
  MALLOC_MMAP_THRESHOLD_: "65536",
  MALLOC_TRIM_THRESHOLD_: "131072",
};

export const PROVIDER_ARGS: readonly string[] = onBun
  ? ["demo/provider/main.ts"]
  : ["run", "--allow-net", "--allow-read", "--allow-env", "demo/provider/main.ts"];

/**
 * The user's environment without what would send the service elsewhere
 * (another configuration file, database or port: the demo has its own) and
 * without provider keys, which the demo never needs.
 */
export function childEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (/^(ROUTER_|DATABASE_URL$|PORT$|[A-Z]+_API_KEY$)/.test(name)) continue;
    out[name] = value;
  }
  return out;
}

/** How a person runs the command-line client from the repository, the way the demo was run. */
export function cliCommand(execPath = process.execPath): string {
  if (onBun) return "bun clients/typescript/src/cli/main.ts";
  // Run through `npx -y deno@2 task demo`: deno is not on PATH, npx finds it again.
  return /[\\/](node_modules|_npx)[\\/]/.test(execPath)
    ? "npx -y deno@2 task cli --"
    : "deno task cli --";
}
