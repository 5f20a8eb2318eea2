/**
 * What every command starts from: the service URL, the saved credentials and
 * provider keys, and a client that saves each renewed token (it signs in
 * again from the saved API key when the token expired).
 */
import process from "node:process";
import { createClient, type SwitchyardClient } from "../client.ts";
import {
  configDir,
  loadCredentials,
  saveCredentials,
  type SavedCredentials,
} from "./config_dir.ts";
import type { Terminal } from "./terminal.ts";
import { UsageError } from "./usage_error.ts";

export const DEFAULT_URL = "http://127.0.0.1:7331";

/** Provider keys from the usual variables, then `--provider-key id=key` flags. */
const KEY_VARIABLES: Record<string, string> = {
  OPENAI_API_KEY: "openai",
  ANTHROPIC_API_KEY: "anthropic",
  GEMINI_API_KEY: "gemini",
};

export interface Context {
  dir: string;
  url: string;
  saved: SavedCredentials;
  client: SwitchyardClient;
  term: Terminal;
  /** Saves the client's credentials now held, under this URL. */
  save(extra?: Partial<SavedCredentials>): Promise<void>;
}

export function providerKeys(flags: string[] = [], env = process.env): Record<string, string> {
  const keys: Record<string, string> = {};
  for (const [variable, provider] of Object.entries(KEY_VARIABLES)) {
    if (env[variable]) keys[provider] = env[variable]!;
  }
  for (const flag of flags) {
    const at = flag.indexOf("=");
    if (at <= 0) {
      throw new UsageError(`--provider-key expects <provider>=<key>, got "${flag.slice(0, 20)}"`);
    }
    keys[flag.slice(0, at)] = flag.slice(at + 1);
  }
  return keys;
}

/** `apiKey` replaces the saved key (and drops the saved token, which may be another user's). */
export async function openContext(
  flags: { url?: string; "provider-key"?: string[] },
  term: Terminal,
  apiKey?: string,
): Promise<Context> {
  const dir = configDir();
  const stored = await loadCredentials(dir);
  const url = flags.url ?? process.env.SWITCHYARD_URL ?? stored.url ?? DEFAULT_URL;
  // Credentials saved for another service are not sent to this one.
  let saved = stored.url === undefined || stored.url === url ? stored : {};
  if (apiKey !== undefined && apiKey !== saved.api_key) saved = { api_key: apiKey };
  const ctx: Context = {
    dir,
    url,
    saved,
    term,
    client: undefined as unknown as SwitchyardClient,
    async save(extra = {}) {
      const { token, apiKey } = ctx.client.auth.credentials();
      ctx.saved = { ...ctx.saved, ...extra, url, api_key: apiKey, token };
      await saveCredentials(dir, ctx.saved);
    },
  };
  ctx.client = createClient({
    baseUrl: url,
    apiKey: ctx.saved.api_key,
    token: ctx.saved.token,
    providerKeys: providerKeys(flags["provider-key"]),
    onToken: (signed) => ctx.save({ expires_at: signed.expires_at }),
  });
  return ctx;
}

/** The saved token, or a clear instruction when there is none. */
export function requireLogin(ctx: Context): void {
  if (!ctx.saved.token && !ctx.saved.api_key) {
    throw new Error(`not logged in to ${ctx.url}: run \`switchyard login\` first`);
  }
}
