/**
 * `switchyard keys list | create NAME [--expires ISO] | revoke ID`: the
 * caller's API keys. A new key is printed once, alone on stdout (so it can be
 * piped into a secret store); the service never shows it again.
 */
import type { ApiKeyInfo } from "../keys.ts";
import type { Context } from "./context.ts";
import { printable, printableJson } from "./printable.ts";
import { UsageError } from "./usage_error.ts";

export const KEYS_USAGE = "usage: switchyard keys list | create NAME [--expires ISO] | revoke ID";

function state(key: ApiKeyInfo, now: Date): string {
  if (key.revoked_at !== null) return `revoked ${key.revoked_at}`;
  if (key.expires_at !== null && Date.parse(key.expires_at) <= now.getTime()) {
    return `expired ${key.expires_at}`;
  }
  return key.expires_at === null ? "active" : `active until ${key.expires_at}`;
}

export async function keys(
  ctx: Context,
  args: string[],
  flags: { expires?: string; json?: boolean },
): Promise<void> {
  const [action, arg, extra] = args;
  const json = (value: unknown) => ctx.term.out(`${printableJson(value)}\n`);
  if (extra !== undefined) throw new UsageError(KEYS_USAGE);
  switch (action) {
    case undefined:
    case "list": {
      if (arg !== undefined) throw new UsageError(KEYS_USAGE);
      const list = await ctx.client.keys.list();
      if (flags.json) return json(list);
      const now = new Date();
      for (const key of list) {
        ctx.term.out(
          `${key.key_id}  ${printable(key.name)}  created ${key.created_at}  last used ${
            key.last_used_at ?? "never"
          }  ${state(key, now)}\n`,
        );
      }
      return;
    }
    case "create": {
      if (arg === undefined) throw new UsageError(KEYS_USAGE);
      const created = await ctx.client.keys.create(arg, {
        expiresAt: flags.expires,
      });
      if (flags.json) return json(created);
      ctx.term.err(
        `created key ${created.key_id} "${printable(created.name)}"${
          created.expires_at === null ? "" : ` (expires ${created.expires_at})`
        }: it is shown only now\n`,
      );
      return ctx.term.out(`${created.api_key}\n`);
    }
    case "revoke": {
      if (arg === undefined) throw new UsageError(KEYS_USAGE);
      await ctx.client.keys.revoke(arg);
      if (flags.json) return json({ revoked: true, key_id: arg });
      return ctx.term.out(`revoked key ${arg}; its tokens stop working now\n`);
    }
    default:
      throw new UsageError(KEYS_USAGE);
  }
}
