/**
 * Codex's configuration for the demo: a `config.toml` whose custom provider is
 * the service, over the Responses API (the only one Codex takes from a custom
 * provider), with the key read from SWITCHYARD_API_KEY. Codex then needs
 * nothing but the service: no update check, no analytics, and no plugin
 * catalogue (the one thing that reaches github.com and chatgpt.com on start).
 * The demo writes it to its own CODEX_HOME, apart from the user's ~/.codex.
 */

/** The provider id in `model_providers` and the environment variable holding the key. */
export const CODEX_PROVIDER = "switchyard";
export const CODEX_KEY_ENV = "SWITCHYARD_API_KEY";

/** The task of the printed `codex exec`: a command run through Codex's shell tool. */
export const CODEX_PROMPT = "Run `ls` and tell me what is here";

/** The `config.toml` text pointing Codex at the service at `url` (no `/v1`). */
export function codexConfig(url: string, model = "switchyard"): string {
  return `model = ${JSON.stringify(model)}
model_provider = "${CODEX_PROVIDER}"
check_for_update_on_startup = false

[features]
plugins = false

[analytics]
enabled = false

[model_providers.${CODEX_PROVIDER}]
name = "Switchyard"
base_url = ${JSON.stringify(`${url}/v1`)}
wire_api = "responses"
env_key = "${CODEX_KEY_ENV}"
`;
}

const shellQuote = (text: string) =>
  /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;

/** The `codex exec` line that uses the configuration in `codexHome`, run in a project folder. */
export function codexExecLine(codexHome: string): string {
  return `CODEX_HOME=${shellQuote(codexHome)} codex exec --skip-git-repo-check ${
    shellQuote(CODEX_PROMPT)
  }`;
}
