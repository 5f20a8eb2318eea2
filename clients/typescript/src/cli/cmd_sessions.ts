/** `switchyard sessions list|show|archive|delete`. */
import type { SessionKey } from "../session_key.ts";
import type { Context } from "./context.ts";
import { printable } from "./printable.ts";
import { UsageError } from "./usage_error.ts";

export async function sessions(
  ctx: Context,
  args: string[],
  flags: { scope?: string; title?: string; json?: boolean },
  key: () => Promise<SessionKey | undefined>,
): Promise<void> {
  const [action = "list", id] = args;
  const needId = () => {
    if (id === undefined) throw new UsageError(`usage: switchyard sessions ${action} <session-id>`);
    return id;
  };
  switch (action) {
    case "list": {
      const list = await ctx.client.sessions.list({ scope: flags.scope, title: flags.title });
      if (flags.json) return ctx.term.out(`${JSON.stringify(list, null, 2)}\n`);
      for (const s of list) {
        const marks = [s.archived ? "archived" : "", s.encrypted ? "encrypted" : ""].filter(
          Boolean,
        );
        ctx.term.out(
          `${s.id}  ${s.updated_at}  ${s.title == null ? "(untitled)" : printable(s.title)}${
            marks.length ? `  [${marks.join(", ")}]` : ""
          }\n`,
        );
      }
      if (list.length === 0) ctx.term.err("no sessions\n");
      return;
    }
    case "show": {
      const summary = await ctx.client.session(needId()).get();
      const own = summary.key_id === undefined ? undefined : await key();
      if (own !== undefined && own.keyId !== summary.key_id) {
        throw new Error(
          `session ${id} is sealed with key '${summary.key_id}', the key file holds '${own.keyId}'`,
        );
      }
      const messages = await ctx.client.session(needId(), { key: own }).messages();
      if (flags.json) return ctx.term.out(`${JSON.stringify({ ...summary, messages }, null, 2)}\n`);
      ctx.term.out(
        `${summary.title == null ? "(untitled)" : printable(summary.title)}  ${summary.id}${
          summary.key_id ? `  [encrypted: ${summary.key_id}]` : ""
        }\n`,
      );
      for (const m of messages) {
        const by = m.model ? ` (${m.provider}/${m.model})` : "";
        ctx.term.out(`\n${m.role}${by}:\n${m.text}\n`);
      }
      return;
    }
    case "archive":
      await ctx.client.session(needId()).archive();
      return ctx.term.out(`archived ${id}\n`);
    case "delete":
      await ctx.client.session(needId()).delete();
      return ctx.term.out(`deleted ${id}\n`);
    default:
      throw new UsageError(
        `unknown sessions action "${action}": expected list, show, archive or delete`,
      );
  }
}
