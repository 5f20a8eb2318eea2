/**
 * The `switchyard` command-line client driven as a person would, through
 * piped stdin, against the real service (in process behind a real socket)
 * and the fake provider.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import process from "node:process";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { TestApp } from "../support/app.ts";
import { type CliOptions, type CliResult, runCli } from "../support/cli_process.ts";
import { dumpDatabase } from "../support/db_dump.ts";
import { type FakeProvider, startFakeProvider } from "../support/fake_provider.ts";
import { createEngineApp, openAiStream, openAiToolCallStream } from "../support/engine_app.ts";
import { type Served, serveHandler } from "../support/serve_handler.ts";

let openai: FakeProvider;
let app: TestApp;
let served: Served;
let home: string;
let workspace: string;
let policyFile: string;
/** The default route falls back from gpt-4o-mini to gpt-4o. */
let fallbackPolicy: string;
/** The first `switchyard login`, run before every test so each can run alone. */
let firstLogin: CliResult;

before(async () => {
  openai = await startFakeProvider();
  app = await createEngineApp({ openai: openai.url, ollama: "http://127.0.0.1:9" });
  served = await serveHandler(app.handler);
  home = await mkdtemp(join(tmpdir(), "switchyard-cli-home-"));
  workspace = await mkdtemp(join(tmpdir(), "switchyard-cli-ws-"));
  policyFile = join(workspace, "policy.toml");
  await writeFile(
    policyFile,
    `[routing.default]
model = "openai/gpt-4o-mini"

[tools.permissions]
file_read = "allow"
file_write = "allow"
shell = "ask"

[privacy.remote]
mode = "allow"
`,
  );
  fallbackPolicy = join(workspace, "fallback.json");
  await writeFile(
    fallbackPolicy,
    JSON.stringify({
      routing: { default: { model: "openai/gpt-4o-mini", fallbacks: ["openai/gpt-4o"] } },
      privacy: { remote: { mode: "allow" } },
    }),
  );
  await writeFile(join(workspace, "notes.txt"), "NOTES_CONTENT_41\n");
  firstLogin = await cli(["login"]);
});
after(async () => {
  await served.close();
  await app.close();
  await openai.close();
  await rm(home, { recursive: true, force: true });
  await rm(workspace, { recursive: true, force: true });
});

const cli = (args: string[], options: Partial<CliOptions> = {}) =>
  runCli(args, {
    cwd: workspace,
    ...options,
    env: {
      XDG_CONFIG_HOME: home,
      SWITCHYARD_URL: served.url,
      OPENAI_API_KEY: "sk-test-openai",
      ...options.env,
    },
  });
const saved = async () =>
  JSON.parse(await readFile(join(home, "switchyard", "credentials.json"), "utf8"));
const mode = async (path: string) => (await stat(path)).mode & 0o777;
const sessionOf = (stderr: string) => /session ([0-9a-f-]{36})/.exec(stderr)![1];

describe("switchyard login", () => {
  test("bootstraps once, keeps key and token owner-only, and signs in again with the saved key", async () => {
    const first = firstLogin;
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /logged in to .* as [0-9a-f-]{36} \(new user\)/);
    const creds = await saved();
    assert.match(creds.api_key, /^sk-router-api01-/);
    assert.equal(await mode(join(home, "switchyard", "credentials.json")), 0o600);
    assert.equal(await mode(join(home, "switchyard")), 0o700);
    const again = await cli(["login"]);
    assert.equal(again.code, 0, again.stderr);
    assert.ok(again.stdout.includes(creds.user_id) && !again.stdout.includes("new user"));
    assert.notEqual((await saved()).token, creds.token);
  });

  test("a wrong API key is refused with a clear message", async () => {
    const r = await cli(["login", "--api-key", "sk-router-api01-nope"], {
      env: { XDG_CONFIG_HOME: join(home, "other") },
    });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /refused the API key \(invalid_api_key\)/);
  });
});

describe("switchyard chat", () => {
  test("runs allowed tools here, asks y/n for an ask call, and streams the answer", async () => {
    openai.requests.length = 0;
    openai.enqueue(openAiToolCallStream("read_file", { path: "notes.txt" }));
    openai.enqueue(openAiToolCallStream("shell", { command: "echo SHELL_RAN_52 > made.txt" }));
    openai.enqueue(openAiStream(["The notes ", "say hello."]));
    const r = await cli(["chat", "--policy", policyFile, "read my notes"], { input: "y\n" });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "The notes say hello.\n");
    assert.match(r.stderr, /→ read_file \{"path":"notes.txt"\}/);
    assert.match(r.stderr, /run shell \{"command":"echo SHELL_RAN_52 > made.txt"\}\? \[y\/n\]/);
    assert.equal(await readFile(join(workspace, "made.txt"), "utf8"), "SHELL_RAN_52\n");
    const sent = openai.requests.map((q) => q.body).join("\n");
    assert.ok(sent.includes("NOTES_CONTENT_41"), "the file read here reached the model");
  });

  test("a 'n' answer declines the call and the model is told", async () => {
    openai.requests.length = 0;
    openai.enqueue(openAiToolCallStream("shell", { command: "rm -rf ~" }));
    openai.enqueue(openAiStream(["Understood."]));
    const r = await cli(["chat", "--policy", policyFile, "clean up"], { input: "maybe\nn\n" });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /please answer y or n/);
    assert.equal(r.stdout, "Understood.\n");
    assert.ok(openai.requests.at(-1)!.body.includes("the user declined this call"));
  });

  test("without a prompt it reads one per line into one session until the end of input", async () => {
    openai.enqueue(openAiStream(["first answer"]));
    openai.enqueue(openAiStream(["second answer"]));
    const r = await cli(["chat", "--policy", policyFile, "--title", "loop"], {
      input: "first question\n\nsecond question\n",
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "first answer\nsecond answer\n");
    const show = await cli(["sessions", "show", sessionOf(r.stderr)]);
    assert.equal(show.code, 0, show.stderr);
    for (const text of ["first question", "first answer", "second question", "second answer"]) {
      assert.ok(show.stdout.includes(text), text);
    }
  });

  test("Ctrl-C sends break: the run stops and the partial is kept", async () => {
    openai.enqueue(openAiStream(["PARTIAL_63 ", "b ", "c ", "d ", "e ", "f "], 300));
    let interrupted = false;
    const r = await cli(["chat", "--policy", policyFile, "tell a long story"], {
      onStdout: (text, child) => {
        if (!interrupted && text.includes("PARTIAL_63")) {
          interrupted = true;
          // Not child.kill: Deno's child_process then reports the signal, not how the child exited.
          process.kill(child.pid!, "SIGINT");
        }
      },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /\[break\]/);
    assert.ok(!r.stdout.includes("f "), "the stream stopped early");
    const id = sessionOf(r.stderr);
    let show = "";
    for (let i = 0; i < 50 && !show.includes("PARTIAL_63"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      show = (await cli(["sessions", "show", id])).stdout;
    }
    assert.match(show, /assistant \(openai\/gpt-4o-mini\):\nPARTIAL_63/);
  });

  test("--encrypt creates an owner-only key file and nothing readable reaches the database", async () => {
    openai.requests.length = 0;
    await writeFile(join(workspace, "secret.txt"), "SECRET_CONTENT_57\n");
    openai.enqueue(openAiToolCallStream("read_file", { path: "secret.txt" }));
    openai.enqueue(openAiStream(["ANSWER_", "SEALED_74"]));
    const r = await cli([
      "chat",
      "--encrypt",
      "--policy",
      policyFile,
      "PROMPT_SEALED_85 read the secret",
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "ANSWER_SEALED_74\n");
    const keyFile = join(home, "switchyard", "session.key");
    assert.equal(await mode(keyFile), 0o600);
    const key = JSON.parse(await readFile(keyFile, "utf8"));
    assert.match(r.stderr, new RegExp(`encrypted with ${key.key_id}`));
    const sent = openai.requests.map((q) => q.body).join("\n");
    const dump = await dumpDatabase(app.db);
    for (const canary of ["PROMPT_SEALED_85", "SECRET_CONTENT_57"]) {
      assert.ok(sent.includes(canary), `the provider received ${canary}`);
    }
    for (const canary of ["PROMPT_SEALED_85", "SECRET_CONTENT_57", "ANSWER_SEALED_74"]) {
      assert.equal(dump.includes(canary), false, `${canary} is stored readable`);
    }
    const id = sessionOf(r.stderr);
    const show = await cli(["sessions", "show", id]);
    assert.match(
      show.stdout,
      /PROMPT_SEALED_85 read the secret[\s\S]*ANSWER_SEALED_74/,
      "opened with the key file",
    );
    // why opens the sealed trace with the key file, and says what it cannot read without it.
    const why = await cli(["why", id]);
    assert.equal(why.code, 0, why.stderr);
    assert.match(why.stdout, /^model: +openai\/gpt-4o-mini$/m);
    assert.match(why.stdout, /^context: +\+ /m);
    assert.doesNotMatch(why.stdout, /^sealed:/m);
    const blind = await cli(["why", id, "--key-file", join(home, "none.key")]);
    assert.equal(blind.code, 0, blind.stderr);
    assert.match(blind.stdout, /^sealed: +\d+ events are sealed; give the session's key file/m);
    openai.enqueue(openAiStream(["SECOND_96"]));
    const more = await cli(["chat", "--session", id, "--policy", policyFile, "and again"]);
    assert.equal(more.code, 0, more.stderr);
    assert.equal(more.stdout, "SECOND_96\n");
    assert.ok(
      openai.requests.at(-1)!.body.includes("ANSWER_SEALED_74"),
      "history opened for the model",
    );
    const wrongKey = await cli([
      "chat",
      "--session",
      id,
      "--key-file",
      join(home, "none.key"),
      "x",
    ]);
    assert.equal(wrongKey.code, 1);
    assert.match(wrongKey.stderr, /sealed with key/);
  });
});

describe("switchyard why and trace", () => {
  test("why explains the last turn, --turn an earlier one, --json as data", async () => {
    await openai.enqueueFixture("openai", "error_503");
    openai.enqueue(openAiStream(["FELL_BACK_31"]));
    const first = await cli(["chat", "--policy", fallbackPolicy, "summarise the notes"]);
    assert.equal(first.stdout, "FELL_BACK_31\n", first.stderr);
    const id = sessionOf(first.stderr);
    openai.enqueue(openAiStream(["again"]));
    const second = await cli(["chat", "--session", id, "--policy", fallbackPolicy, "again"]);
    assert.equal(second.code, 0, second.stderr);

    const last = await cli(["why", id]);
    assert.equal(last.code, 0, last.stderr);
    assert.match(last.stdout, /^turn 2 of 2 · 1 model call · /);
    assert.match(last.stdout, /^model call 1 of 1 · trace [0-9a-f-]{36}$/m);
    assert.match(last.stdout, /^model: +openai\/gpt-4o-mini$/m);
    assert.match(last.stdout, /^fallbacks: +none$/m);
    assert.match(last.stdout, /^intent: +chat \(inferred, low confidence\)$/m);
    assert.match(last.stdout, /^routing: +default route, effort medium$/m);
    assert.match(last.stdout, /^tokens: +\d+ in, \d+ out, [\d.]+ USD \(openai\/gpt-4o-mini\)$/m);

    const earlier = await cli(["why", id, "--turn", "1"]);
    assert.match(earlier.stdout, /^turn 1 of 2 /);
    assert.match(earlier.stdout, /^model: +openai\/gpt-4o$/m);
    assert.match(earlier.stdout, /^routing: +default route, fallback, effort medium$/m);
    assert.match(
      earlier.stdout,
      /^fallbacks: +openai\/gpt-4o-mini: invocation of 'openai\/gpt-4o-mini' failed \(provider_unavailable\): openai answered HTTP 503/m,
    );

    const data = JSON.parse((await cli(["why", id, "--turn", "1", "--json"])).stdout);
    assert.equal(data.turn, 1);
    assert.equal(data.of, 2);
    assert.equal(data.calls.length, 1);
    assert.deepEqual(data.calls[0].choices.map((c: { model: string }) => c.model), [
      "gpt-4o-mini",
      "gpt-4o",
    ]);
    assert.deepEqual(
      data.calls[0].fallbacks.map((f: { model: string }) => f.model),
      ["openai/gpt-4o-mini"],
    );

    const beyond = await cli(["why", id, "--turn", "3"]);
    assert.equal(beyond.code, 1);
    assert.match(
      beyond.stderr,
      /^error: --turn expects 1 to 2 \(the session has 2 turns\), got 3$/m,
    );
  });

  test("why --turn N is the Nth prompt: a tool call and its answer are one turn of two model calls", async () => {
    openai.enqueue(openAiToolCallStream("read_file", { path: "notes.txt" }));
    openai.enqueue(openAiStream(["READ_THEM_18"]));
    const first = await cli(["chat", "--policy", policyFile, "read my notes"]);
    assert.equal(first.stdout, "READ_THEM_18\n", first.stderr);
    const id = sessionOf(first.stderr);
    openai.enqueue(openAiStream(["SECOND_PROMPT_27"]));
    const second = await cli(["chat", "--session", id, "--policy", policyFile, "and now?"]);
    assert.equal(second.code, 0, second.stderr);

    const read = await cli(["why", id, "--turn", "1"]);
    assert.equal(read.code, 0, read.stderr);
    assert.match(read.stdout, /^turn 1 of 2 · 2 model calls · /);
    const text = read.stdout;
    const [call1, tool, call2] = [
      text.indexOf("model call 1 of 2"),
      text.search(/^tool call: +read_file notes\.txt \(completed\)$/m),
      text.indexOf("model call 2 of 2"),
    ];
    assert.ok(call1 >= 0 && call1 < tool && tool < call2, text);
    assert.match(text, /^context: +\+ tool_call read_file notes\.txt \(required\)$/m);
    assert.match(text, /^total: +\d+ in, \d+ out, [\d.]+ USD \(2 model calls\)$/m);

    const next = await cli(["why", id, "--turn", "2"]);
    assert.match(next.stdout, /^turn 2 of 2 · 1 model call · /);
    const table = (await cli(["trace", id])).stdout;
    assert.match(table, /^-- turn 1 · model call 2 of 2 · trace [0-9a-f-]{36} · /m);
    assert.match(table, /tool_call +openai\/gpt-4o-mini +read_file notes\.txt requested$/m);
  });

  test("trace is a table by default and raw events with --json", async () => {
    openai.enqueue(openAiStream(["tabled"]));
    const made = await cli(["chat", "--policy", policyFile, "--attach", "notes.txt", "table"]);
    const id = sessionOf(made.stderr);
    const table = await cli(["trace", id]);
    assert.equal(table.code, 0, table.stderr);
    const lines = table.stdout.trimEnd().split("\n");
    assert.match(lines[0], /^# +time +kind +model +what$/);
    assert.match(
      lines[1],
      /^-- turn 1 · model call 1 of 1 · trace [0-9a-f-]{36} · \d{4}-\d{2}-\d{2}$/,
    );
    assert.match(
      table.stdout,
      /^2 +\d\d:\d\d:\d\d\.\d{3} +classification +openai\/gpt-4o-mini +chat /m,
    );
    assert.match(table.stdout, /context_selection +openai\/gpt-4o-mini +\+ file notes\.txt: /);
    const raw = (await cli(["trace", id, "--json"])).stdout.trim().split("\n");
    const rows = lines.filter((line) => /^\d+ /.test(line));
    assert.equal(rows.length, raw.length);
    assert.deepEqual(
      rows.map((row) => row.split(/ +/)[2]),
      raw.map((line) => JSON.parse(line).event_type),
    );
  });
});

describe("errors show their details", () => {
  test("every fallback hop that failed is listed with its reason, streamed or buffered", async () => {
    await openai.enqueueFixture("openai", "error_503");
    await openai.enqueueFixture("openai", "error_503");
    const r = await cli(["chat", "--policy", fallbackPolicy, "hello"]);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /^error: fallback_exhausted: fallback exhausted: 2 candidates were tried/m,
    );
    // The stream had started: its turn_end carries no details, the trace tells the hops.
    assert.match(
      r.stderr,
      /\n {2}tried, in order:\n {4}1\. openai\/gpt-4o-mini: invocation of 'openai\/gpt-4o-mini' failed \(provider_unavailable\): openai answered HTTP 503[^\n]*\n {4}2\. openai\/gpt-4o: invocation of 'openai\/gpt-4o' failed \(provider_unavailable\)/,
    );
    await openai.enqueueFixture("openai", "error_503");
    await openai.enqueueFixture("openai", "error_503");
    const buffered = await cli(["chat", "--policy", fallbackPolicy, "--buffered", "hello"]);
    assert.match(
      buffered.stderr,
      /\n {2}tried, in order:\n {4}1\. openai\/gpt-4o-mini \(provider_unavailable\): openai answered HTTP 503[^\n]*\n {4}2\. openai\/gpt-4o \(provider_unavailable\): /,
    );
    await openai.enqueueFixture("openai", "error_503");
    await openai.enqueueFixture("openai", "error_503");
    const json = await cli(["chat", "--policy", fallbackPolicy, "--buffered", "--json", "hello"]);
    const envelope = JSON.parse(json.stderr.slice(json.stderr.indexOf("{")));
    assert.equal(envelope.error.code, "fallback_exhausted");
    assert.equal(envelope.error.status, 503);
    assert.deepEqual(
      envelope.error.details.hops.map((h: { model: string }) => h.model),
      ["gpt-4o-mini", "gpt-4o"],
    );
  });

  test("a turn that must stay local names why and every candidate skipped", async () => {
    const local = join(workspace, "local.json");
    await writeFile(
      local,
      JSON.stringify({
        routing: { default: { model: "openai/gpt-4o-mini", fallbacks: ["openai/gpt-4o"] } },
        privacy: { remote: { mode: "deny" } },
      }),
    );
    const r = await cli(["chat", "--policy", local, "hello"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^error: no_route: no route: /m);
    assert.match(r.stderr, /\n {2}must stay local because: remote mode deny\n/);
    assert.match(
      r.stderr,
      /\n {2}skipped:\n {4}openai\/gpt-4o-mini: [^\n]+\n {4}openai\/gpt-4o: [^\n]+/,
    );
  });

  test("an invalid field names its path", async () => {
    const r = await cli(["chat", "--policy", policyFile, "--command", "poem", "hello"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^error: unknown_intent: [^\n]*\n {2}at: +input\.command\n/m);
    const json = JSON.parse((await cli(["preview", "--model", "nope", "--json", "x"])).stderr);
    assert.equal(json.error.code, "invalid_model_reference");
    assert.equal(json.error.details.path, "input.explicit_model");
  });

  test("a rate-limited request says when to retry", async () => {
    const limited = await createEngineApp({
      openai: openai.url,
      ollama: "http://127.0.0.1:9",
      configure: (c) => Object.assign(c.limits.rate, { userBurst: 2, userPerMinute: 1 }),
    });
    const server = await serveHandler(limited.handler);
    const env = { SWITCHYARD_URL: server.url, XDG_CONFIG_HOME: join(home, "limited") };
    try {
      assert.equal((await cli(["login"], { env })).code, 0);
      let r = await cli(["sessions", "list"], { env });
      for (let i = 0; i < 3 && r.code === 0; i++) r = await cli(["sessions", "list"], { env });
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /^error: rate_limited: rate limit exceeded for this user: /);
      assert.match(r.stderr, /\n {2}retry after: \d+ s\n$/);
      const json = JSON.parse((await cli(["sessions", "list", "--json"], { env })).stderr);
      assert.equal(json.error.code, "rate_limited");
      assert.equal(json.error.retry_after_seconds, json.error.details.retry_after_seconds);
    } finally {
      await server.close();
      await limited.close();
    }
  });
});

describe("switchyard policy", () => {
  // A user of its own: a stored `default` policy would change every other chat here.
  const own = (args: string[], options: Partial<CliOptions> = {}) =>
    cli(args, { ...options, env: { XDG_CONFIG_HOME: join(home, "policies"), ...options.env } });
  before(async () => {
    const login = await own(["login"]);
    assert.equal(login.code, 0, login.stderr);
  });

  test("push stores numbered versions, list shows the latest, show prints TOML that pushes back", async () => {
    const first = await own(["policy", "push", policyFile, "--name", "work"]);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout, "work version 1\n");
    const second = await own(["policy", "push", fallbackPolicy, "--name", "work"]);
    assert.equal(second.stdout, "work version 2\n");
    const list = await own(["policy", "list"]);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^work {2}version 2 {2}\S+\n$/);

    const shown = await own(["policy", "show", "work", "--version", "1"]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /^# work version 1, stored \S+\n/);
    assert.match(shown.stdout, /^\[routing\.default\]\nmodel = "openai\/gpt-4o-mini"$/m);
    assert.match(shown.stdout, /^shell = "ask"$/m);
    const latest = await own(["policy", "show", "work"]);
    assert.match(latest.stdout, /^# work version 2,/);
    assert.match(latest.stdout, /^fallbacks = \[ "openai\/gpt-4o" \]$/m);

    const again = join(workspace, "shown.toml");
    await writeFile(again, shown.stdout);
    assert.equal(
      (await own(["policy", "push", again, "--name", "work"])).stdout,
      "work version 3\n",
    );
    const [one, three] = await Promise.all(
      ["1", "3"].map(async (v) =>
        JSON.parse((await own(["policy", "show", "work", "--version", v, "--json"])).stdout)
      ),
    );
    assert.deepEqual(three.policy, one.policy);
  });

  test("errors name their code and path", async () => {
    const bad = join(workspace, "bad_effort.json");
    await writeFile(
      bad,
      JSON.stringify({
        routing: { rules: [{ name: "r", model: "openai/gpt-4o", effort: "huge" }] },
      }),
    );
    const r = await own(["policy", "push", bad, "--name", "work"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /unknown_effort/);
    assert.match(r.stderr, /policy\.routing\.rules\[0\]\.effort/);
    const missing = await own(["policy", "show", "nothing"]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^error: not_found: /);
    const noName = await own(["policy", "push", policyFile]);
    assert.equal(noName.code, 2);
    assert.match(noName.stderr, /usage: switchyard policy push/);
  });

  test("chat without --policy uses the stored default policy and says which version", async () => {
    // Nothing is queued for the provider, so the turn may fail: only its policy line matters.
    const none = await own(["chat", "hello"], { input: "n\n" });
    assert.doesNotMatch(none.stderr, /^policy: /m, "no stored default: as before");

    const stored = join(workspace, "default.toml");
    await writeFile(
      stored,
      `[routing.default]\nmodel = "openai/gpt-4o"\n\n[privacy.remote]\nmode = "allow"\n`,
    );
    assert.equal((await own(["policy", "push", stored, "--name", "default"])).code, 0);
    openai.requests.length = 0;
    openai.enqueue(openAiStream(["with the default"]));
    const r = await own(["chat", "hello"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "with the default\n");
    assert.match(r.stderr, /^policy: default version 1 \(stored\)$/m);
    assert.match(openai.requests.at(-1)!.body, /"model":"gpt-4o"/);
  });
});

describe("switchyard sessions, preview, usage, trace, models", () => {
  test("list, archive and delete a session; errors name their code", async () => {
    openai.enqueue(openAiStream(["ok"]));
    const made = await cli(["chat", "--policy", policyFile, "--title", "to archive", "hi"]);
    const id = sessionOf(made.stderr);
    const list = await cli(["sessions", "list", "--title", "to archive"]);
    assert.match(list.stdout, new RegExp(`^${id}  \\S+  to archive\\n$`));
    assert.equal((await cli(["sessions", "archive", id])).code, 0);
    assert.match((await cli(["sessions", "list", "--title", "to archive"])).stdout, /\[archived\]/);
    const gone = await cli(["sessions", "show", id]);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /^error: session_not_found: /);
    const bad = await cli(["sessions", "delete", "not-a-uuid"]);
    assert.match(bad.stderr, /^error: invalid_session_id: /);
  });

  test("preview says which model and why; usage and trace read a session", async () => {
    const p = await cli(["preview", "--policy", policyFile, "explain the code"]);
    assert.equal(p.code, 0, p.stderr);
    assert.match(p.stdout, /^model: +openai\/gpt-4o-mini$/m);
    assert.match(
      p.stdout,
      /^why: +no rule matched; using the default route to 'openai\/gpt-4o-mini'$/m,
    );
    openai.enqueue(openAiStream(["counted"]));
    const made = await cli(["chat", "--policy", policyFile, "count"]);
    const id = sessionOf(made.stderr);
    const u = await cli(["usage", id]);
    assert.match(u.stdout, /openai\/gpt-4o-mini: 1 requests, 24 in, 1 out/);
    const t = await cli(["trace", id, "--limit", "3", "--json"]);
    const events = t.stdout.trim().split("\n").map((line) => JSON.parse(line));
    assert.equal(events.length, 3);
    assert.ok(events.every((e) => typeof e.event_type === "string"));
    const badLimit = await cli(["trace", id, "--limit", "-1"]);
    assert.equal(badLimit.code, 2);
  });

  test("models --save writes the catalog snapshot policy test routes on", async () => {
    openai.enqueue({
      status: 200,
      headers: { "content-type": "application/json" },
      body: { object: "list", data: [{ id: "gpt-4o-mini", object: "model", owned_by: "x" }] },
    });
    const path = join(workspace, "catalog.json");
    const r = await cli(["models", "--save", path]);
    assert.equal(r.code, 0, r.stderr);
    const snapshot = JSON.parse(await readFile(path, "utf8"));
    assert.deepEqual(snapshot.credential_providers, ["openai"]);
    assert.ok(snapshot.providers.includes("ollama"));
    assert.ok(snapshot.models.some((m: { model: string }) => m.model === "gpt-4o-mini"));
    assert.ok(snapshot.unavailable.some((u: { provider: string }) => u.provider === "anthropic"));
  });
});

describe("tokens", () => {
  test("an expired token is renewed from the saved key and saved again", async () => {
    const before = (await saved()).token;
    app.clock.advance((app.config.auth.tokenTtlSeconds + 1) * 1000);
    const r = await cli(["sessions", "list"]);
    assert.equal(r.code, 0, r.stderr);
    const after = await saved();
    assert.notEqual(after.token, before);
    assert.equal(await mode(join(home, "switchyard", "credentials.json")), 0o600);
    const out = await cli(["logout"]);
    assert.equal(out.code, 0, out.stderr);
    assert.equal((await saved()).token, undefined);
    assert.match((await saved()).api_key, /^sk-router-api01-/);
  });
});
