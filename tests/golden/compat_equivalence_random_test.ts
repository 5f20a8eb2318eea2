/**
 * A compatible turn equals a native turn (decisions.md §12), over seeded
 * random conversations and policies: keyword and typo rules,
 * `requires_any_context`, path rules, restricted and blocked paths, local-only
 * rules, small windows, privacy and tool approval modes, explicit models. Each
 * conversation is written as an OpenAI Chat Completions body, an Anthropic
 * Messages body and an OpenAI Responses body (`truncation: auto`, so it trims
 * as the others do); each goes through its surface's translation and
 * the compatible turn's own decision path (conversationTurnOf,
 * conversationDecisionInput, decideTurn), and the result must equal the
 * native preview of the equivalent body, which this test builds itself from
 * the conversation it generated: the last user message's own text, the tool
 * calls' paths in order of first appearance, the results after the last user
 * message as required attachments. Every field of classification and routing
 * (or of the failure) must be equal, but for the token figures of a window
 * check, which §12 lets differ: each form counts what it sends (§15), a native
 * turn its own preamble and tool definitions too, so where a window lies
 * between the two counts the decisions are compared with windows out of play. A smaller sample runs the same through the
 * service over HTTP: the decision its trace records against the preview
 * endpoint. `EQUIVALENCE_SEED` and `EQUIVALENCE_N` change the run.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import process from "node:process";
import { describe, test } from "node:test";
import type { ModelDescriptor } from "../../src/core/model.ts";
import { classificationBody, previewTurn } from "../../src/core/preview.ts";
import { decideTurn } from "../../src/core/turn_decision.ts";
import { conversationDecisionInput } from "../../src/engine/conversation_turn.ts";
import { parseTurnRequest } from "../../src/http/turn_request.ts";
import { anthropicMessagesRequest } from "../../src/surfaces/anthropic_request.ts";
import {
  type CompatRequest,
  conversationTurnOf,
  modelChoice,
} from "../../src/surfaces/compat_turn.ts";
import { openAiChatRequest } from "../../src/surfaces/openai_request.ts";
import { responsesRequest } from "../../src/surfaces/responses_request.ts";
import { call } from "../support/app.ts";
import { engineHarness, ollamaReply, openAiReply } from "../support/engine_app.ts";

const SEED = Number(process.env.EQUIVALENCE_SEED ?? 20261128);
const N = Number(process.env.EQUIVALENCE_N ?? 4000);
const HTTP_N = 60;

/** mulberry32: a small seeded generator, the same numbers under every runtime. */
function generator(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];
  const chance = (p: number) => next() < p;
  const some = <T>(xs: readonly T[], p: number): T[] => xs.filter(() => chance(p));
  return { int, pick, chance, some };
}
type Rng = ReturnType<typeof generator>;

const WORDS = [
  "review",
  "refactor",
  "fix",
  "architecture",
  "plan",
  "explain",
  "summarize",
  "the",
  "code",
  "this",
  "please",
  "module",
  "deploy",
  "hello",
];
const TYPOS = [
  "reveiw",
  "refactr",
  "archtecture",
  "sumarize",
  "explian",
  "modul",
];
const KEYWORDS = [
  "review",
  "refactor",
  "fix",
  "architecture",
  "plan",
  "summarize",
  "explain",
];
const PATHS = [
  "src/a.ts",
  "src/b.ts",
  "./src/a.ts",
  "secrets/key.txt",
  "config/.env",
  "docs/readme.md",
  "README.md",
  "src/deep/x.ts",
];
const GLOBS = [
  "secrets/**",
  ".env",
  "src/**",
  "docs/*.md",
  "*.md",
  "src/deep/**",
  "[bad",
];
const MODELS = [
  "openai/gpt-4o",
  "openai/gpt-4o-mini",
  "anthropic/claude-sonnet-4-6",
  "ollama/qwen3:8b",
  "ollama/llama3.2",
];
const INTENTS = ["chat", "plan", "edit", "review", "summarize"];
const TOOLS = ["read_file", "bash", "grep", "edit_file", "glob"];

function catalog(r: Rng): ModelDescriptor[] {
  const windows = [300, 600, 1200, 8192, 128000];
  const outputs = [null, 64, 256, 4096];
  const model = (
    provider: string,
    name: string,
    local: boolean,
    caps: Record<string, boolean>,
  ): ModelDescriptor => ({
    provider,
    model: name,
    local,
    auth: local ? "none" : "api_key",
    capabilities: { streaming: true, system_prompt: true, ...caps },
    max_context_tokens: r.pick(windows),
    max_output_tokens: r.pick(outputs),
    input_cost_per_million_tokens: "1.00",
    output_cost_per_million_tokens: "2.00",
    default_parameters: {},
  });
  return [
    model("openai", "gpt-4o", false, {
      tools: true,
      images: true,
      json_output: true,
    }),
    model("openai", "gpt-4o-mini", false, {
      tools: true,
      json_output: r.chance(0.5),
    }),
    model("anthropic", "claude-sonnet-4-6", false, {
      tools: true,
      images: true,
    }),
    model("ollama", "qwen3:8b", true, { tools: r.chance(0.5) }),
    model("ollama", "llama3.2", true, {}),
  ];
}

function route(r: Rng, models: readonly string[]) {
  return { model: r.pick(models), fallbacks: r.some(models, 0.3) };
}

function policy(r: Rng, models: readonly string[]): Record<string, unknown> {
  const classification = {
    default_intent: r.pick(INTENTS),
    rules: Array.from({ length: r.int(5) }, () => ({
      intent: r.pick(INTENTS),
      priority: r.int(4),
      ...(r.chance(0.8) ? { keywords: r.some(KEYWORDS, 0.3) } : {}),
      ...(r.chance(0.3)
        ? {
          requires_any_context: r.some([
            "referenced_paths",
            "git_diff",
            "active_file",
          ], 0.5),
        }
        : {}),
    })),
  };
  const rules = Array.from({ length: r.int(4) }, (_, i) => ({
    name: `rule-${i}`,
    priority: r.int(4),
    ...(r.chance(0.5) ? { intent: r.pick(INTENTS) } : {}),
    ...(r.chance(0.5) ? { paths: r.some(GLOBS.slice(0, -1), 0.3) } : {}),
    ...(r.chance(0.25) ? { local_only: true } : {}),
    ...(r.chance(0.15) ? { requires_capabilities: { images: true } } : {}),
    ...(r.chance(0.1) ? { cost_limit: "0.000001" } : {}),
    ...(r.chance(0.2) ? { required_permissions: { permissions: { bash: "deny" } } } : {}),
    effort: r.pick(["low", "medium", "high"]),
    ...route(r, models),
  }));
  const modes = ["allow", "ask", "deny"];
  return {
    classification,
    routing: { ...(r.chance(0.9) ? { default: route(r, models) } : {}), rules },
    tools: {
      permissions: Object.fromEntries(
        r.some(TOOLS, 0.3).map((t) => [t, r.pick(["allow", "ask"])]),
      ),
    },
    privacy: {
      restricted_paths: r.some(GLOBS, 0.15),
      remote: { mode: r.pick(modes), blocked_paths: r.some(GLOBS, 0.1) },
      local: { mode: r.pick(modes) },
    },
  };
}

interface Call {
  id: string;
  name: string;
  args: Record<string, unknown>;
  result: string;
}
type Step =
  | { kind: "user"; own: string; reminder: string | null }
  | { kind: "assistant"; text: string; calls: Call[] };

function text(r: Rng, words: number): string {
  return Array.from(
    { length: 1 + r.int(words) },
    () => r.chance(0.1) ? r.pick(TYPOS) : r.pick(WORDS),
  ).join(" ");
}

function conversation(r: Rng): Step[] {
  let n = 0;
  const calls = (): Call[] =>
    Array.from({ length: 1 + r.int(2) }, () => {
      const name = r.pick(TOOLS);
      const args: Record<string, unknown> = r.pick([
        () => ({ file_path: r.pick(PATHS) }),
        () => ({ path: r.pick(PATHS) }),
        () => ({ paths: r.some(PATHS, 0.3) }),
        () => ({ command: "ls -la" }),
        () => ({ filename: r.pick(PATHS), pattern: "x" }),
      ])();
      return {
        id: `call_${++n}`,
        name,
        args,
        result: "x".repeat(r.pick([0, 10, 200, 1500, 4000])) + text(r, 6),
      };
    });
  const user = (): Step => ({
    kind: "user",
    own: text(r, 8),
    reminder: r.chance(0.3) ? `<system-reminder>${text(r, 30)} review fix</system-reminder>` : null,
  });
  const steps: Step[] = [user()];
  for (let i = r.int(4); i > 0; i--) {
    steps.push({
      kind: "assistant",
      text: r.chance(0.7) ? text(r, 10) : "",
      calls: r.chance(0.6) ? calls() : [],
    });
    steps.push(user());
  }
  if (r.chance(0.5)) {
    steps.push({ kind: "assistant", text: "", calls: calls() });
  }
  return steps;
}

function userText(s: Extract<Step, { kind: "user" }>): string {
  return s.reminder === null ? s.own : `${s.reminder}\n${s.own}`;
}

function openAiBody(model: string, system: string | null, steps: Step[]) {
  const messages: unknown[] = system === null ? [] : [{ role: "system", content: system }];
  for (const s of steps) {
    if (s.kind === "user") {
      messages.push({ role: "user", content: userText(s) });
      continue;
    }
    messages.push({
      role: "assistant",
      content: s.text === "" && s.calls.length > 0 ? null : s.text,
      ...(s.calls.length === 0 ? {} : {
        tool_calls: s.calls.map((c) => ({
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: JSON.stringify(c.args) },
        })),
      }),
    });
    for (const c of s.calls) {
      messages.push({ role: "tool", tool_call_id: c.id, content: c.result });
    }
  }
  return { model, messages };
}

/** The conversation as OpenAI Responses input items; `auto` trims as the other surfaces do. */
function responsesBody(model: string, system: string | null, steps: Step[]) {
  const input: unknown[] = [];
  for (const s of steps) {
    if (s.kind === "user") {
      input.push({ role: "user", content: userText(s) });
      continue;
    }
    if (s.text !== "") input.push({ role: "assistant", content: s.text });
    for (const c of s.calls) {
      input.push({
        type: "function_call",
        call_id: c.id,
        name: c.name,
        arguments: JSON.stringify(c.args),
      });
    }
    for (const c of s.calls) {
      input.push({
        type: "function_call_output",
        call_id: c.id,
        output: c.result,
      });
    }
  }
  return {
    model,
    ...(system === null ? {} : { instructions: system }),
    input,
    truncation: "auto",
  };
}

function anthropicBody(model: string, system: string | null, steps: Step[]) {
  const messages: { role: string; content: unknown[] }[] = [];
  let results: unknown[] = [];
  for (const s of steps) {
    if (s.kind === "user") {
      const blocks: unknown[] = [...results];
      // Claude Code sends its reminders as text blocks of their own.
      if (s.reminder !== null) blocks.push({ type: "text", text: s.reminder });
      blocks.push({ type: "text", text: s.own });
      messages.push({ role: "user", content: blocks });
      results = [];
      continue;
    }
    const content: unknown[] = s.text === "" ? [] : [{ type: "text", text: s.text }];
    for (const c of s.calls) {
      content.push({ type: "tool_use", id: c.id, name: c.name, input: c.args });
    }
    if (content.length === 0) content.push({ type: "text", text: "ok" });
    messages.push({ role: "assistant", content });
    results = s.calls.map((c) => ({
      type: "tool_result",
      tool_use_id: c.id,
      content: [{ type: "text", text: c.result }],
    }));
  }
  if (results.length > 0) messages.push({ role: "user", content: results });
  return {
    model,
    max_tokens: 256,
    ...(system === null ? {} : { system }),
    messages,
  };
}

function pathsOf(args: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const key of ["path", "file_path", "filepath", "filename"]) {
    if (typeof args[key] === "string" && args[key] !== "") {
      out.push(args[key] as string);
    }
  }
  if (Array.isArray(args.paths)) out.push(...args.paths);
  return out;
}

/** The native body §12 says the conversation equals, built from what this test generated. */
function nativeBody(steps: Step[], explicit: string | null) {
  const lastUser = steps.findLastIndex((s) => s.kind === "user");
  const prompt = steps[lastUser] as Extract<Step, { kind: "user" }>;
  const referenced: string[] = [];
  for (const s of steps) {
    if (s.kind !== "assistant") continue;
    for (const c of s.calls) {
      for (const p of pathsOf(c.args)) {
        if (!referenced.includes(p)) referenced.push(p);
      }
    }
  }
  const files: unknown[] = [];
  const counts: Record<string, number> = {};
  for (const s of steps.slice(lastUser + 1)) {
    if (s.kind !== "assistant") continue;
    for (const c of s.calls) {
      const first = pathsOf(c.args)[0];
      const path = first ??
        `tool-results/${c.name}-${(counts[c.name] = (counts[c.name] ?? 0) +
          1)}`;
      files.push({
        path,
        content: c.result,
        content_hash: `sha256:${createHash("sha256").update(c.result).digest("hex")}`,
        required: true,
      });
    }
  }
  return {
    input: {
      text: prompt.own,
      ...(explicit === null ? {} : { explicit_model: explicit }),
    },
    workspace: { referenced_paths: referenced },
    attachments: { files, instructions: [] },
  };
}

/** §12 lets the token figures of a window check differ; nothing else. */
function figuresOut(json: string): string {
  return json
    .replace(/\(\d+ \+ \d+ > \d+ tokens\)/g, "(… tokens)")
    .replace(/required \d+ tokens/g, "required … tokens")
    .replace(/"required_tokens":\d+/g, '"required_tokens":…');
}

interface Outcome {
  json: string;
}

function decisionJson(
  d: ReturnType<typeof previewTurn>,
): Outcome {
  if (!d.ok) return { json: JSON.stringify({ failure: d.failure }) };
  return {
    json: JSON.stringify({
      classification: d.value.classification,
      routing: d.value.routing,
    }),
  };
}

interface Case {
  policy: Record<string, unknown>;
  steps: Step[];
  system: string | null;
  model: string;
  catalog: ModelDescriptor[];
  credentials: string[];
}

function makeCase(
  r: Rng,
  models: readonly string[],
  withCatalog: boolean,
): Case {
  return {
    policy: policy(r, models),
    steps: conversation(r),
    system: r.chance(0.5) ? `You are a coding agent. ${text(r, 20)}` : null,
    model: r.chance(0.1) ? r.pick(models) : "switchyard",
    catalog: withCatalog ? catalog(r) : [],
    credentials: r.some(["openai", "anthropic"], 0.8),
  };
}

/** The compatible side: the surface's translation, then the turn's own decision path. */
function compatOutcome(c: Case, request: CompatRequest): Outcome {
  const choice = modelChoice(request.model)!;
  const explicit = choice.kind === "model" ? choice.ref : null;
  let turn;
  try {
    turn = conversationTurnOf(request, c.policy, explicit);
  } catch (error) {
    return {
      json: JSON.stringify({
        failure: (error as { failure?: unknown }).failure,
      }),
    };
  }
  const decided = decideTurn(conversationDecisionInput(turn, {
    catalog: c.catalog,
    credential_providers: c.credentials,
    known_providers: ["openai", "anthropic", "ollama"],
  }));
  if (!decided.ok) {
    return { json: JSON.stringify({ failure: decided.failure }) };
  }
  const d = decided.value;
  return {
    json: JSON.stringify({
      classification: classificationBody(d.classification),
      routing: {
        intent: d.classification.intent,
        provider: d.routing.model.provider,
        model: d.routing.model.model,
        matched_rule: d.routing.rule?.name ?? null,
        fallback_used: d.routing.fallback_used,
        override_used: d.routing.override_used,
        reason: d.routing.reason,
      },
    }),
  };
}

/** The case with every context window too large to matter. */
function unwindowed(c: Case): Case {
  return { ...c, catalog: c.catalog.map((m) => ({ ...m, max_context_tokens: 100_000_000 })) };
}

function nativeOutcome(c: Case): Outcome {
  const choice = modelChoice(c.model)!;
  const body = nativeBody(c.steps, choice.kind === "model" ? choice.ref : null);
  const parsed = parseTurnRequest({ ...body, policy: c.policy });
  if (!parsed.ok) return { json: JSON.stringify({ failure: parsed.failure }) };
  return decisionJson(previewTurn({
    request: parsed.value,
    catalog: c.catalog,
    credential_providers: c.credentials,
    known_providers: ["openai", "anthropic", "ollama"],
  }));
}

const SURFACES = {
  openai: (c: Case) => openAiChatRequest(openAiBody(c.model, c.system, c.steps)),
  anthropic: (c: Case) => anthropicMessagesRequest(anthropicBody(c.model, c.system, c.steps)),
  responses: (c: Case) =>
    responsesRequest(responsesBody(c.model, c.system, c.steps), {
      previous: null,
      items: new Map(),
    }),
};

/** Each surface's own seed offset, so their runs differ. */
const SURFACE_PATHS = {
  openai: "chat/completions",
  anthropic: "messages",
  responses: "responses",
};

const SEED_OFFSET: Record<string, number> = {
  openai: 0,
  anthropic: 1,
  responses: 2,
};

describe(`compatible decisions equal native previews over random conversations (seed ${SEED})`, () => {
  for (const [surface, translate] of Object.entries(SURFACES)) {
    test(`${surface}: ${N} conversations, decided in the core`, () => {
      const r = generator(SEED + SEED_OFFSET[surface]);
      let equal = 0;
      let exactFigures = 0;
      let straddling = 0;
      let failures = 0;
      const kinds = new Map<string, number>();
      const differing: string[] = [];
      for (let i = 0; i < N; i++) {
        const c = makeCase(r, MODELS, true);
        const native = nativeOutcome(c);
        const compat = compatOutcome(c, translate(c));
        if (compat.json === native.json) exactFigures++;
        if (figuresOut(compat.json) === figuresOut(native.json)) equal++;
        else {
          // Each form's windows count what it sends (§12, §15): a native turn its own additions
          // too. Where a window lies between the two counts, with windows out of play the
          // decisions must be equal.
          const open = unwindowed(c);
          const [n, m] = [nativeOutcome(open), compatOutcome(open, translate(open))];
          if (figuresOut(m.json) === figuresOut(n.json)) straddling++;
          else if (differing.length < 3) {
            differing.push(`case ${i}:\n  native ${n.json}\n  compat ${m.json}`);
          }
        }
        if (native.json.startsWith('{"failure"')) failures++;
        const kind = JSON.parse(native.json).failure?.code ??
          JSON.parse(native.json).routing.reason.split(" ").slice(0, 2).join(
            " ",
          );
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      }
      console.log(
        `${surface}: seed ${SEED}, N ${N}: equal ${equal}/${N} (${
          (100 * equal / N).toFixed(2)
        } %), ` +
          `equal with figures ${exactFigures}; native failures ${failures}; outcomes ${
            JSON.stringify(Object.fromEntries(kinds))
          }`,
      );
      console.log(`${surface}: a window between what the two forms send: ${straddling}`);
      assert.equal(equal + straddling, N, differing.join("\n"));
      // The sample is varied: refusals, rules, defaults, overrides and fallbacks all occur.
      for (
        const kind of [
          "no_route",
          "context_window_exceeded",
          "explicit model",
          "rule 'rule-0'",
          "no rule",
        ]
      ) {
        assert.ok(
          (kinds.get(kind) ?? 0) > 0,
          `no '${kind}' outcome in ${JSON.stringify([...kinds])}`,
        );
      }
    });
  }
});

describe(`the service records the native preview's decision (seed ${SEED}, HTTP sample)`, () => {
  const h = engineHarness();
  const KEYS = { "x-router-provider-openai-api-key": "sk-test-openai" };
  const HTTP_MODELS = [
    "openai/gpt-4o",
    "openai/gpt-4o-mini",
    "ollama/qwen3:8b",
  ];

  /** The decision a turn's trace recorded, in the preview's shape. */
  async function recorded(session: string, traceId: string) {
    const trace = await call(
      h.app,
      "GET",
      `/api/v1/sessions/${session}/traces`,
      {
        token: h.alice.token,
      },
    );
    const events = trace.body.trace.events.filter((e: { trace_id: string }) =>
      e.trace_id === traceId
    );
    const of = (type: string) => events.find((e: { event_type: string }) => e.event_type === type);
    if (of("routing_decision") === undefined) return null;
    const said = of("classification").payload.plaintext;
    const routed = of("routing_decision");
    const r = routed.payload.plaintext;
    const classification: Record<string, unknown> = {
      intent: said.intent,
      source: said.source,
      reason: said.reason,
      matched_rule: said.matched_rule,
    };
    if (said.confidence !== undefined) {
      classification.confidence = said.confidence;
    }
    return JSON.stringify({
      classification,
      routing: {
        intent: said.intent,
        provider: r.provider,
        model: r.model,
        matched_rule: routed.matched_rule ?? null,
        fallback_used: r.fallback_used,
        override_used: r.override_used,
        reason: r.reason,
      },
    });
  }

  for (const surface of ["openai", "anthropic", "responses"] as const) {
    test(`${surface}: ${HTTP_N} conversations through the service`, async () => {
      const r = generator(SEED + 7 + SEED_OFFSET[surface]);
      let compared = 0;
      let refused = 0;
      for (let i = 0; i < HTTP_N; i++) {
        const c = makeCase(r, HTTP_MODELS, false);
        // Every rule's glob must be valid for the policy to be stored.
        const name = `eq-${surface}-${i}`;
        const stored = await call(h.app, "PUT", `/api/v1/policies/${name}`, {
          token: h.alice.token,
          body: c.policy,
        });
        if (stored.status >= 300) continue;
        const model = c.model === "switchyard" ? `switchyard/${name}` : c.model;
        if (c.model !== "switchyard") {
          await call(h.app, "PUT", "/api/v1/policies/default", {
            token: h.alice.token,
            body: c.policy,
          });
        }
        const native = await call(
          h.app,
          "POST",
          `/api/v1/sessions/${await h.session()}/preview`,
          {
            token: h.alice.token,
            body: {
              ...nativeBody(c.steps, c.model === "switchyard" ? null : c.model),
              policy: c.policy,
            },
            headers: KEYS,
          },
        );
        h.openai.enqueue(openAiReply({ text: "ok" }));
        h.ollama.enqueue(ollamaReply({ text: "ok" }));
        const body = surface === "openai"
          ? openAiBody(model, c.system, c.steps)
          : surface === "responses"
          ? responsesBody(model, c.system, c.steps)
          : anthropicBody(model, c.system, c.steps);
        const response = await h.app.handler(
          new Request(
            `http://switchyard.test/v1/${SURFACE_PATHS[surface]}`,
            {
              method: "POST",
              headers: { authorization: `Bearer ${h.alice.apiKey}`, ...KEYS },
              body: JSON.stringify(body),
            },
          ),
        );
        const answer = await response.json();
        const session = response.headers.get("x-router-session-id");
        const traceId = response.headers.get("x-router-trace-id");
        if (native.status !== 200) {
          // No decision natively: none recorded either, with the same error code.
          const code = surface === "anthropic" ? undefined : answer.error?.code;
          assert.ok(response.status >= 400, JSON.stringify(answer));
          if (code !== undefined) assert.equal(code, native.body.error.code);
          continue;
        }
        const routed = `'${native.body.routing.provider}/${native.body.routing.model}'`;
        if (session === null || traceId === null) {
          // A refusal before the call that does not name its turn: it names the model it chose.
          assert.equal(response.status, 403, JSON.stringify(answer));
          assert.ok(
            JSON.stringify(answer).includes(routed),
            JSON.stringify(answer),
          );
          refused++;
          continue;
        }
        const decision = await recorded(session, traceId);
        assert.equal(
          decision,
          JSON.stringify({
            classification: native.body.classification,
            routing: native.body.routing,
          }),
          `case ${i}: ${JSON.stringify(answer)}`,
        );
        compared++;
      }
      console.log(
        `${surface}: HTTP sample of ${HTTP_N}: ${compared} recorded decisions equal, ${refused} refused`,
      );
      assert.ok(compared >= HTTP_N / 3, `only ${compared} decisions compared`);
    });
  }
});
