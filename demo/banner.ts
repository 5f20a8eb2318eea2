/**
 * What the demo prints once it runs: where to look, the key, three commands to
 * try, and how tools that speak OpenAI's or Anthropic's API reach it (the
 * OpenAI SDK, curl, Claude Code, Codex).
 */
import { codexConfig, codexExecLine } from "./codex_config.ts";
import type { StoredPolicy } from "./demo_policies.ts";

export interface BannerFacts {
  url: string;
  providerUrl: string;
  models: readonly string[];
  apiKey: string;
  token: string;
  sessionId: string;
  /** How to run the command-line client from the repository, e.g. `deno task cli --`. */
  cli: string;
  /** Paths as the user types them from the repository root. */
  policyFile: string;
  previewFile: string;
  logDir: string;
  /** The demo policy as stored under each name (`default`, `demo`). */
  policies: readonly StoredPolicy[];
  /** The CODEX_HOME the demo wrote Codex's configuration to, absolute (Codex runs elsewhere). */
  codexHome: string;
}

/** The prompt of the first command: a review (the large model) that reads a file (a tool call). */
export const CHAT_PROMPT = "Please review README.md";
/** The prompt of the preview: an edit, which the demo policy sends to the code model. */
export const PREVIEW_PROMPT = "Fix the error handling in src/main.ts";

/** The prompt of the OpenAI SDK snippet: a plan, which the demo policy sends to the large model. */
export const SDK_PROMPT = "Plan the next release";
/** The prompt of the curl example: small talk, for the small model. */
export const CURL_PROMPT = "hello";

const shellQuote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/** A runnable OpenAI SDK program in TypeScript, at the demo's address with its key. */
export function openAiSnippet(url: string, apiKey: string): string {
  return `import OpenAI from "openai";
const client = new OpenAI({ baseURL: "${url}/v1", apiKey: "${apiKey}" });
const { data, response } = await client.chat.completions.create({
  model: "switchyard",
  messages: [{ role: "user", content: ${JSON.stringify(SDK_PROMPT)} }],
}).withResponse();
console.log(data.model, data.choices[0].message.content);
console.log("session", response.headers.get("x-router-session-id"));`;
}

/** The policies line: which names hold the demo policy, at which version. */
function policiesLine(f: BannerFacts): string {
  const names = f.policies.map((p) => `"${p.name}" v${p.version}`).join(", ");
  return `${f.policyFile}, stored as your named policies ${names}`;
}

const indent = (text: string, by = "  ") => text.replaceAll(/^/gm, by);

export function banner(f: BannerFacts): string {
  const preview = `${f.url}/api/v1/sessions/${f.sessionId}/preview`;
  const chat = JSON.stringify({
    model: "switchyard",
    messages: [{ role: "user", content: CURL_PROMPT }],
  });
  return `
Switchyard demo: the service and a demo provider, no provider key needed.

  console    ${f.url}/console  (sign in with the API key)
  API key    ${f.apiKey}
  models     ${f.models.map((m) => `openai-compat:demo/${m}`).join(", ")}
             answered by the demo provider at ${f.providerUrl}
  policy     ${policiesLine(f)}

Try it from another terminal, in this directory:

  export SWITCHYARD_URL=${f.url} SWITCHYARD_API_KEY=${f.apiKey}

  # 1. a review goes to the large model, which reads README.md through a tool call
  ${f.cli} chat --policy ${f.policyFile} --session ${f.sessionId} ${shellQuote(CHAT_PROMPT)}

  # 2. why that model: classification, routing rule, context, tokens and cost
  ${f.cli} why ${f.sessionId}

  # 3. where an edit would go, without calling any model (HTTP API, session token valid for a day)
  curl -s ${preview} -H 'authorization: Bearer ${f.token}' -H 'content-type: application/json' -d @${f.previewFile}

Or with the tools you already use: model "switchyard" is your policy "default",
"switchyard/demo" the policy "demo" (both ${f.policyFile} here).

  # 4. the OpenAI SDK in TypeScript: in an empty folder, npm install openai, save this as
  #    chat.ts, run npx -y deno@2 run -A chat.ts (or node chat.ts on Node.js 22.18+)
${indent(openAiSnippet(f.url, f.apiKey))}

  # 5. the same API with curl; then why <the X-Router-Session-Id it answers>
  curl -si ${f.url}/v1/chat/completions -H "authorization: Bearer $SWITCHYARD_API_KEY" \\
    -H 'content-type: application/json' -d '${chat}'

  # 6. Claude Code (recent versions read the small model from ANTHROPIC_DEFAULT_HAIKU_MODEL)
  export ANTHROPIC_BASE_URL=${f.url} ANTHROPIC_AUTH_TOKEN=$SWITCHYARD_API_KEY \\
    ANTHROPIC_MODEL=switchyard/demo ANTHROPIC_SMALL_FAST_MODEL=switchyard/demo \\
    ANTHROPIC_DEFAULT_HAIKU_MODEL=switchyard/demo
  claude

  # 7. Codex (npm install -g @openai/codex), in a project folder of yours: the demo wrote
  #    this to ${f.codexHome}/config.toml (the key: SWITCHYARD_API_KEY, exported above)
${indent(codexConfig(f.url).trimEnd()).replaceAll(/^ +$/gm, "")}

  ${codexExecLine(f.codexHome)}
  #    then ${f.cli} sessions list, and why <its session's id>

Edits go to demo-coder, reviews and plans to demo-large, everything else to demo-mini
(${f.policyFile}; edited, it is stored again when the demo restarts).
Logs: ${f.logDir}/service.log, ${f.logDir}/provider.log. Stop with Ctrl-C.
`;
}
