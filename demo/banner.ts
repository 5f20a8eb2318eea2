/** What the demo prints once it runs: where to look, the key, and three commands to try. */

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
}

/** The prompt of the first command: a review (the large model) that reads a file (a tool call). */
export const CHAT_PROMPT = "Please review README.md";
/** The prompt of the preview: an edit, which the demo policy sends to the code model. */
export const PREVIEW_PROMPT = "Fix the error handling in src/main.ts";

const shellQuote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

export function banner(f: BannerFacts): string {
  const preview = `${f.url}/api/v1/sessions/${f.sessionId}/preview`;
  return `
Switchyard demo: the service and a demo provider, no provider key needed.

  console    ${f.url}/console  (sign in with the API key)
  API key    ${f.apiKey}
  models     ${f.models.map((m) => `openai-compat:demo/${m}`).join(", ")}
             answered by the demo provider at ${f.providerUrl}

Try it from another terminal, in this directory:

  export SWITCHYARD_URL=${f.url} SWITCHYARD_API_KEY=${f.apiKey}

  # 1. a review goes to the large model, which reads README.md through a tool call
  ${f.cli} chat --policy ${f.policyFile} --session ${f.sessionId} ${shellQuote(CHAT_PROMPT)}

  # 2. why that model: classification, routing rule, context, tokens and cost
  ${f.cli} why ${f.sessionId}

  # 3. where an edit would go, without calling any model (HTTP API, session token valid for a day)
  curl -s ${preview} -H 'authorization: Bearer ${f.token}' -H 'content-type: application/json' -d @${f.previewFile}

Edits go to demo-coder, reviews and plans to demo-large, everything else to demo-mini
(${f.policyFile}). Logs: ${f.logDir}/service.log, ${f.logDir}/provider.log. Stop with Ctrl-C.
`;
}
