/**
 * @switchyard/client as published: the build emits the library (web
 * standards only, one runtime dependency), the CLI and the declarations; a
 * consumer project type-checks against the declarations with TypeScript's
 * strictest module settings; and Node.js runs both the library and the CLI
 * (whose `policy test` carries the service's routing core bundled in).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const PACKAGE = join(REPO, "clients/typescript");
const runtimeArgs = process.versions.bun !== undefined ? [] : ["run", "--allow-all"];
let work: string;
let dist: string;
let consumer: string;

function run(command: string, args: string[], cwd: string) {
  const done = spawnSync(command, args, { cwd, encoding: "utf8" });
  return { code: done.status, out: `${done.stdout}${done.stderr}` };
}

/** `npm pack` of the built package, then `npm install` of the tarball, as a user would. */
let packed: string[];

before(async () => {
  work = await mkdtemp(join(tmpdir(), "switchyard-package-"));
  const pkg = join(work, "pkg");
  dist = join(pkg, "dist");
  const built = run(
    process.execPath,
    [...runtimeArgs, join(PACKAGE, "scripts/build.ts"), dist],
    PACKAGE,
  );
  assert.equal(built.code, 0, built.out);
  for (const name of ["package.json", "README.md"]) await cp(join(PACKAGE, name), join(pkg, name));
  // Built above with the runtime running the test: `prepack` would build it again with npx deno@2.
  const pack = spawnSync(
    "npm",
    ["pack", "--ignore-scripts", "--json", "--pack-destination", work],
    {
      cwd: pkg,
      encoding: "utf8",
    },
  );
  assert.equal(pack.status, 0, pack.stderr);
  const [report] = JSON.parse(pack.stdout);
  packed = report.files.map((f: { path: string }) => f.path).sort();
  // A project that installed the tarball: npm resolves its two dependencies from the registry.
  consumer = join(work, "consumer");
  await mkdir(consumer);
  await writeFile(join(consumer, "package.json"), '{ "type": "module" }\n');
  const installed = run(
    "npm",
    [
      "install",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      join(work, report.filename),
    ],
    consumer,
  );
  assert.equal(installed.code, 0, installed.out);
});
after(() => rm(work, { recursive: true, force: true }));

describe("the published package", () => {
  test("the library bundle uses web standards only and imports nothing but its SSE parser", async () => {
    const code = await readFile(join(dist, "index.js"), "utf8");
    const imports = [...code.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);
    assert.deepEqual(imports, ["eventsource-parser/stream"]);
    assert.doesNotMatch(code, /\bnode:|\bDeno\b|\bBun\b|\brequire\(/);
    const files = (await readdir(dist)).sort();
    for (const name of ["cli.js", "index.d.ts", "index.js", "openapi.d.ts", "session.d.ts"]) {
      assert.ok(files.includes(name), name);
    }
    assert.match(await readFile(join(dist, "cli.js"), "utf8"), /^#!\/usr\/bin\/env node\n/);
  });

  test("a consumer type-checks against the declarations, and a wrong use is an error", async () => {
    await writeFile(
      join(consumer, "main.ts"),
      `import { createClient, createSessionKey, SwitchyardError, type TurnStreamEvent } from "@switchyard/client";
const client = createClient({ baseUrl: "http://127.0.0.1:7331", apiKey: "k" });
const key = await createSessionKey();
const run = client.session("id", { key }).run("hi", {
  onEvent: (e: TurnStreamEvent) => { if (e.type === "text_delta") console.log(e.delta.length); },
  onToolCall: (call) => call.name,
  onApproval: (request) => request.kind === "tool_call",
});
const result = await run;
console.log(result.message?.content.length, new SwitchyardError("no_route", "m", 422).status);
// @ts-expect-error: not an error code of the service or the client
new SwitchyardError("no_such_code", "m");
`,
    );
    await writeFile(
      join(consumer, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: "NodeNext",
          moduleResolution: "NodeNext",
          target: "ES2022",
          lib: ["ES2022", "DOM"],
          noEmit: true,
          types: [],
        },
        files: ["main.ts"],
      }),
    );
    const tsc = join(PACKAGE, "node_modules/typescript/lib/tsc.js");
    const checked = run(process.execPath, [...runtimeArgs, tsc, "-p", "tsconfig.json"], consumer);
    assert.equal(checked.code, 0, checked.out);
  });

  test("the tarball holds the bundles, the declarations, the README and nothing else", () => {
    for (const name of ["README.md", "package.json", "dist/cli.js", "dist/index.js"]) {
      assert.ok(packed.includes(name), name);
    }
    assert.deepEqual(
      packed.filter((p) => !/^(dist\/|README\.md$|package\.json$)/.test(p)),
      [],
    );
  });

  test("the installed bin runs under Node.js and prints the usage", () => {
    const bin = join(consumer, "node_modules/.bin/switchyard");
    const help = run("node", [bin, "--help"], consumer);
    assert.equal(help.code, 0, help.out);
    assert.match(help.out, /^usage: switchyard <command> \[options\]\n/);
    for (const command of ["login", "chat", "why", "trace", "policy test"]) {
      assert.match(help.out, new RegExp(`^  ${command} `, "m"), command);
    }
    // Started by its shebang, as a shell runs it.
    const direct = spawnSync(bin, ["--help"], { cwd: consumer, encoding: "utf8" });
    assert.equal(direct.status, 0, direct.stderr);
    assert.equal(direct.stdout, help.out);
  });

  test("Node.js runs the library and the command-line client", async () => {
    await writeFile(
      join(consumer, "smoke.mjs"),
      `import { createClient, createSessionKey, open, seal } from "@switchyard/client";
const key = await createSessionKey();
const envelope = await seal(key, "hello");
console.log(envelope.algorithm, await open(key, envelope));
await createClient({ baseUrl: "http://127.0.0.1:9" }).status().catch((e) => console.log(e.name, e.code));
`,
    );
    const smoke = run("node", ["smoke.mjs"], consumer);
    assert.equal(smoke.code, 0, smoke.out);
    assert.equal(smoke.out, "AES-256-GCM hello\nSwitchyardError network_error\n");
    const cli = join(consumer, "node_modules/@switchyard/client/dist/cli.js");
    const policy = run(
      "node",
      [cli, "policy", "test", join(REPO, "fixtures/policy_cases")],
      consumer,
    );
    assert.equal(policy.code, 0, policy.out);
    assert.match(policy.out, /5 passed, 0 failed\n$/);
  });
});
