/**
 * Where the command-line client keeps what must survive between runs: the
 * service URL, the API key and the session token (`credentials.json`) and the
 * key of encrypted sessions (`session.key`), in `$XDG_CONFIG_HOME/switchyard`
 * or `~/.config/switchyard`. Every file is written owner-only (0600) in an
 * owner-only directory (0700), and the mode is set again on every write.
 */
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";

export interface SavedCredentials {
  url?: string;
  api_key?: string;
  token?: string;
  expires_at?: string;
  user_id?: string;
}

export function configDir(env: Record<string, string | undefined> = process.env): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
  return join(base, "switchyard");
}

export const credentialsPath = (dir: string) => join(dir, "credentials.json");
export const defaultKeyPath = (dir: string) => join(dir, "session.key");

/** Writes `text` readable by its owner only, creating the directory owner-only. */
export async function writePrivate(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, text, { mode: 0o600 });
  await chmod(path, 0o600); // an existing file keeps its old mode through writeFile
}

export async function readJson<T>(path: string): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    return undefined;
  }
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`${path} is not valid JSON; fix or remove it`);
  }
}

export const loadCredentials = async (dir: string): Promise<SavedCredentials> =>
  (await readJson<SavedCredentials>(credentialsPath(dir))) ?? {};

export const saveCredentials = (dir: string, saved: SavedCredentials) =>
  writePrivate(credentialsPath(dir), `${JSON.stringify(saved, null, 2)}\n`);
