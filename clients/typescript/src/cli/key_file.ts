/**
 * The key of encrypted sessions in a file only its owner reads, created on
 * first use. The key id travels to the service; the key never does.
 */
import {
  createSessionKey,
  exportSessionKey,
  importSessionKey,
  type SessionKey,
} from "../session_key.ts";
import { readJson, writePrivate } from "./config_dir.ts";

export async function loadOrCreateKey(
  path: string,
  create: boolean,
): Promise<SessionKey | undefined> {
  const stored = await readJson<{ key_id?: unknown; key?: unknown }>(path);
  if (stored !== undefined) {
    if (typeof stored.key_id !== "string" || typeof stored.key !== "string") {
      throw new Error(`${path} is not a session key file (expected key_id and key)`);
    }
    return await importSessionKey({ key_id: stored.key_id, key: stored.key });
  }
  if (!create) return undefined;
  const fresh = await createSessionKey({ extractable: true });
  await writePrivate(path, `${JSON.stringify(await exportSessionKey(fresh), null, 2)}\n`);
  return fresh;
}
