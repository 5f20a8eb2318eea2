/**
 * In-process decision latency: `previewTurn` (classification, context,
 * routing, permissions, fill, cost) for a policy of 100 classification rules,
 * 100 routing rules and 50 attachments, on a catalog of every shipped model.
 */
import type { ModelDescriptor } from "../src/core/model.ts";
import { previewTurn } from "../src/core/preview.ts";
import type { TurnRequest } from "../src/core/turn_request_types.ts";
import { parseTurnRequest } from "../src/http/turn_request.ts";
import { catalogDescriptors } from "../src/providers/catalog.ts";
import { buildRegistry } from "../src/providers/registry.ts";
import { type BenchRow, measureSync } from "./measure.ts";

const WORDS = [
  "alpha",
  "bravo",
  "charlie",
  "delta",
  "echo",
  "foxtrot",
  "golf",
  "hotel",
  "india",
  "juliet",
  "kilo",
  "lima",
  "mike",
  "november",
  "oscar",
  "papa",
];
const INTENTS = ["chat", "plan", "edit", "review", "summarize", "prompt", "skill"];

/** A deterministic filler of `n` words. */
const prose = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => WORDS[(i * 7 + seed) % WORDS.length]).join(" ");

/** Keyword vocabulary: distinct words of 4 to 13 letters, as policies use. */
const VOCAB = Array.from({ length: 120 }, (_, i) => {
  const stem = ["deploy", "refactor", "migration", "review", "summarise", "benchmark", "security"][
    i % 7
  ];
  return `${stem}${"abcdefghijklmnopqrstuvwxyz"[i % 26]}${"xyz".slice(0, i % 4)}`;
});

export function policyBody(matchAt: number | null) {
  const classification = Array.from({ length: 100 }, (_, i) => ({
    intent: INTENTS[i % INTENTS.length],
    priority: 10 + i,
    keywords: [VOCAB[i], `${VOCAB[(i + 7) % 120]} ${VOCAB[(i + 13) % 120]}`, `kw${i}`],
    ...(i % 3 === 0 ? { requires_any_context: ["git_diff", "active_file"] } : {}),
  }));
  const routing = Array.from({ length: 100 }, (_, i) => ({
    name: `rule-${i}`,
    priority: 10 + i,
    intent: i === matchAt ? INTENTS[i % INTENTS.length] : INTENTS[(i + 1) % INTENTS.length],
    paths: i === matchAt ? ["src/**/*.ts"] : [`area${i}/**`, `*.ext${i}`, `docs/${i}/*.md`],
    model: "anthropic/claude-sonnet-4-6",
    fallbacks: ["openai/gpt-5.4", "gemini/gemini-2.5-flash"],
    required_permissions: { permissions: { shell: "deny" } },
  }));
  return {
    classification: { default_intent: "chat", rules: classification },
    routing: { default: { model: "openai/gpt-5.4-mini" }, rules: routing },
    tools: { permissions: { file_read: "allow", file_write: "ask", shell: "ask" } },
    privacy: { restricted_paths: ["secrets/**", ".env"], remote: { mode: "allow" } },
  };
}

/** The JSON body of a turn request on the benchmark policy. */
export function requestBody(text: string, matchAt: number | null): Record<string, unknown> {
  const files = Array.from({ length: 50 }, (_, i) => ({
    path: `src/module${i}/file${i}.ts`,
    content: prose(200 + (i % 5) * 100, i),
    required: i < 5,
  }));
  return {
    input: { text },
    workspace: {
      root: "/work/project",
      active_file: "/work/project/src/module1/file1.ts",
      referenced_paths: ["src/module2/file2.ts"],
      git_diff: "diff --git a/src/module3/file3.ts b/src/module3/file3.ts\n+change\n",
    },
    policy: policyBody(matchAt),
    attachments: { files, instructions: [{ source: "AGENTS.md", content: prose(300, 3) }] },
  };
}

export function requestOf(text: string, matchAt: number | null): TurnRequest {
  const parsed = parseTurnRequest(requestBody(text, matchAt));
  if (!parsed.ok) throw new Error(`bench request is invalid: ${parsed.failure.message}`);
  return parsed.value;
}

function shippedCatalog(): ModelDescriptor[] {
  const built = buildRegistry();
  if (!built.ok) throw new Error(built.failure.message);
  return built.value.providers.flatMap(catalogDescriptors);
}

/** A prompt that rule 50 classifies exactly, among 30 words of filler. */
export const MATCHING_PROMPT = `please ${prose(30, 1)} kw50 the parser`;

export function runDecisionBench(iterations = 3000): BenchRow[] {
  const catalog = shippedCatalog();
  const input = (request: TurnRequest) => ({
    request,
    catalog,
    credential_providers: ["anthropic", "openai", "gemini"],
  });
  const cases: [string, TurnRequest][] = [
    [
      "decision: rule 50 matches exactly",
      requestOf(MATCHING_PROMPT, 50),
    ],
    [
      "decision: no rule matches (typo pass over all rules, default route)",
      requestOf(`please ${prose(40, 2)} look at this`, null),
    ],
  ];
  return cases.map(([name, request]) =>
    measureSync(name, iterations, () => {
      const out = previewTurn(input(request));
      if (!out.ok) throw new Error(out.failure.message);
    })
  );
}
