/**
 * What ships is what is tested: the single-file binary (`deno task build`,
 * dist/switchyard) started as an operator starts it, on the embedded store in
 * a temporary directory, against the fake provider: bootstrap, sign in, one
 * streamed turn, a restart, and the session with its turn is still there.
 *
 * Not named `*_test.ts` on purpose: `deno task smoke` builds the binary and
 * runs this file once, rather than both test runs building it again.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { access, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { openAiStream, parseSse } from "../support/engine_app.ts";
import { type FakeProvider, startFakeProvider } from "../support/fake_provider.ts";

const binary = fileURLToPath(new URL("../../dist/switchyard", import.meta.url));
const KEY = "sk-smoke-openai-0123456789";

interface Running {
  url: string;
  stop(): Promise<{ code: number | null; log: string }>;
}

/** Starts the binary in `dir` (so no stray switchyard.toml is read) with only the variables given. */
function startBinary(dir: string, env: Record<string, string>): Promise<Running> {
  const child: ChildProcess = spawn(binary, [], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", HOME: dir, PORT: "0", ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  child.stderr!.on("data", (chunk: Uint8Array) => log += new TextDecoder().decode(chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the binary did not start within 60 s:\n${log}`));
    }, 60_000);
    const poll = setInterval(() => {
      const line = log.split("\n").find((l) => l.includes('"msg":"listening"'));
      if (line === undefined) return;
      clearInterval(poll);
      clearTimeout(timer);
      resolve({
        url: JSON.parse(line).url,
        async stop() {
          child.kill("SIGTERM");
          return { code: await exited, log };
        },
      });
    }, 20);
    exited.then((code) => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`the binary exited with ${code}:\n${log}`));
    });
  });
}

/** Runs the binary to its end with `args` (a command that prints and exits, or refuses). */
function runBinary(
  dir: string,
  args: string[],
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", HOME: dir, PORT: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout!.on("data", (c: Uint8Array) => out += new TextDecoder().decode(c));
    child.stderr!.on("data", (c: Uint8Array) => err += new TextDecoder().decode(c));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`switchyard ${args.join(" ")} did not exit within 30 s:\n${err}`));
    }, 30_000);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

async function send(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: unknown,
) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const type = response.headers.get("content-type") ?? "";
  return {
    status: response.status,
    type,
    text,
    json: type.includes("json") ? JSON.parse(text) : null,
  };
}

describe("the single-file binary", () => {
  let dir: string;
  let fake: FakeProvider;
  before(async () => {
    await access(binary).catch(() => {
      throw new Error(
        `no binary at ${binary}: run \`deno task build\` first (deno task smoke does)`,
      );
    });
    dir = await mkdtemp(join(tmpdir(), "switchyard-binary-"));
    fake = await startFakeProvider();
  });
  after(async () => {
    await fake.close();
    await rm(dir, { recursive: true, force: true });
  });

  test("--help and --version print and exit 0, starting nothing", async () => {
    const help = await runBinary(dir, ["--help"]);
    assert.equal(help.code, 0, help.err);
    assert.match(help.out, /^usage: switchyard /);
    for (const command of ["serve", "migrate", "backup <file>", "restore <file>", "admin"]) {
      assert.ok(help.out.includes(command), command);
    }
    const version = await runBinary(dir, ["--version"]);
    assert.equal(version.code, 0, version.err);
    assert.equal(version.out, "switchyard 0.1.0-alpha.1\n");
    await assert.rejects(access(join(dir, "data")), "no store was made");
  });

  test("an unknown argument prints the usage and exits 2", async () => {
    for (const args of [["--port", "1"], ["bogus"], ["admin", "users", "list"]]) {
      const refused = await runBinary(dir, args);
      assert.equal(refused.code, 2, args.join(" "));
      assert.match(refused.err, /^switchyard: /);
      assert.match(refused.err, /usage: switchyard /);
      assert.equal(refused.out, "");
    }
  });

  test("serves a streamed turn on the embedded store and keeps it across a restart", async () => {
    const env = {
      ROUTER_STORAGE_PATH: join(dir, "data"),
      ROUTER_PROVIDERS_OPENAI_BASE_URL: `${fake.url}/v1`,
    };
    let service = await startBinary(dir, env);
    let sessionId: string;
    let apiKey: string;
    try {
      const status = await send(service.url, "GET", "/status");
      assert.deepEqual(status.json, { status: "ok", version: "0.1.0-alpha.1" });
      const boot = await send(service.url, "POST", "/api/v1/auth/bootstrap");
      assert.equal(boot.status, 201);
      apiKey = boot.json.api_key;
      const signIn = await send(service.url, "POST", "/api/v1/auth/sign-in", {
        "x-router-api-key": apiKey,
      });
      assert.equal(signIn.status, 200);
      const auth = { authorization: `Bearer ${signIn.json.token}` };
      const created = await send(service.url, "POST", "/api/v1/sessions", auth, { title: "smoke" });
      assert.equal(created.status, 201);
      sessionId = created.json.session.id;

      // The model listing, then the streamed answer, in the order the service asks for them.
      fake.enqueue({
        status: 200,
        headers: { "content-type": "application/json" },
        body: { object: "list", data: [{ id: "gpt-4o-mini", object: "model" }] },
      });
      fake.enqueue(openAiStream(["Shipped ", "and ", "tested."]));
      const turn = await send(
        service.url,
        "POST",
        `/api/v1/sessions/${sessionId}/execute`,
        { ...auth, accept: "text/event-stream", "x-router-provider-openai-api-key": KEY },
        {
          input: { text: "Say something." },
          policy: {
            routing: { default: { model: "openai/gpt-4o-mini" } },
            privacy: { remote: { mode: "allow" } },
          },
        },
      );
      assert.equal(turn.status, 200, turn.text);
      assert.match(turn.type, /^text\/event-stream/);
      const events = parseSse(turn.text).events;
      const deltas = events.filter((e) => e.type === "text_delta").map((e) => e.delta).join("");
      assert.equal(deltas, "Shipped and tested.");
      const end = events.at(-1)!;
      assert.equal(end.type, "turn_end");
      assert.equal(end.status, "completed");
    } finally {
      const stopped = await service.stop();
      assert.match(stopped.log, /"msg":"shutting down"/);
      assert.doesNotMatch(stopped.log, /"level":"error"/);
    }

    service = await startBinary(dir, env);
    try {
      const signIn = await send(service.url, "POST", "/api/v1/auth/sign-in", {
        "x-router-api-key": apiKey,
      });
      assert.equal(signIn.status, 200);
      const detail = await send(service.url, "GET", `/api/v1/sessions/${sessionId}`, {
        authorization: `Bearer ${signIn.json.token}`,
      });
      assert.equal(detail.status, 200);
      assert.equal(detail.json.session.title, "smoke");
      assert.deepEqual(
        detail.json.session.messages.map((m: { role: string; content: unknown }) => [
          m.role,
          m.content,
        ]),
        [["user", { plaintext: "Say something." }], ["assistant", {
          plaintext: "Shipped and tested.",
        }]],
      );
    } finally {
      await service.stop();
    }
  });
});
