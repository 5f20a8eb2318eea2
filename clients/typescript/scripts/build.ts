/**
 * Builds the publishable package into `dist/` (or the folder given): the
 * library as one ES module for every runtime and browsers, the command-line
 * client as one ES module for Node.js 20+ (the service's routing core bundled
 * in, for `policy test`), and the library's `.d.ts` files. Runs under Deno or
 * Bun; Bun bundles (offline), TypeScript emits the declarations.
 */
import { spawnSync } from "node:child_process";
import { chmod, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const PACKAGE = fileURLToPath(new URL("..", import.meta.url));
const onBun = process.versions.bun !== undefined;
/** Dependencies of package.json: imported at run time, never bundled. */
const EXTERNAL = ["eventsource-parser", "smol-toml"];

function run(command: string, args: string[]): void {
  const done = spawnSync(command, args, { cwd: PACKAGE, stdio: "inherit" });
  if (done.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} failed (${done.status ?? done.signal})`);
  }
}

const bun = (
  args: string[],
) => (onBun
  ? run(process.execPath, ["build", ...args])
  : run("npx", ["-y", "bun@1", "build", ...args]));

export async function build(outDir: string): Promise<void> {
  await rm(outDir, { recursive: true, force: true });
  const external = EXTERNAL.flatMap((name) => ["--external", name]);
  bun([
    "src/index.ts",
    "--target",
    "browser",
    "--format",
    "esm",
    "--outfile",
    join(outDir, "index.js"),
    ...external,
  ]);
  bun([
    "src/cli/main.ts",
    "--target",
    "node",
    "--format",
    "esm",
    "--outfile",
    join(outDir, "cli.js"),
    ...external,
  ]);
  const cli = join(outDir, "cli.js");
  const text = await readFile(cli, "utf8");
  if (!text.startsWith("#!")) await writeFile(cli, `#!/usr/bin/env node\n${text}`);
  await chmod(cli, 0o755);
  const tsc = join(PACKAGE, "node_modules/typescript/lib/tsc.js");
  const runtimeArgs = onBun ? [] : ["run", "--allow-all"];
  run(process.execPath, [...runtimeArgs, tsc, "-p", "tsconfig.json", "--outDir", outDir]);
  // Declarations keep the sources' `.ts` specifiers; published ones name the `.js` beside them.
  for (const name of await readdir(outDir)) {
    if (!name.endsWith(".d.ts")) continue;
    const path = join(outDir, name);
    const text = await readFile(path, "utf8");
    await writeFile(path, text.replace(/(from\s+["']\.{1,2}\/[^"']+)\.ts(["'])/g, "$1.js$2"));
  }
}

if (import.meta.main) await build(resolve(PACKAGE, process.argv[2] ?? "dist"));
