#!/usr/bin/env node
/**
 * `switchyard`: the command-line client of the Switchyard service, built on
 * @switchyard/client. Runs under Node.js 20+, Deno and Bun.
 */
import { resolve } from "node:path";
import process from "node:process";
import { parseArgs } from "node:util";
import { admin } from "./cmd_admin.ts";
import { login, logout } from "./cmd_auth.ts";
import { chat } from "./cmd_chat.ts";
import { models, preview, trace, usage } from "./cmd_inspect.ts";
import { keys } from "./cmd_keys.ts";
import { policy, storedDefaultPolicy } from "./cmd_policy.ts";
import { sessions } from "./cmd_sessions.ts";
import { periodUsage } from "./cmd_usage.ts";
import { why } from "./cmd_why.ts";
import { defaultKeyPath } from "./config_dir.ts";
import { type Context, openContext, providerKeys, requireLogin } from "./context.ts";
import { errorJson, errorReport } from "./error_report.ts";
import { loadOrCreateKey } from "./key_file.ts";
import { loadPolicy } from "./policy_file.ts";
import { terminal } from "./terminal.ts";
import { UsageError } from "./usage_error.ts";

const USAGE = `usage: switchyard <command> [options]

  login [--api-key KEY]            sign in (bootstraps a new user when no key is known)
  logout                           revoke the saved token
  keys [list]                      your API keys (never a secret)
  keys create NAME [--expires ISO] a new API key, printed once (--expires e.g. 2027-01-01T00:00:00Z)
  keys revoke ID                   revoke a key and every token signed in with it
  sessions [list] [--scope S] [--title T]
  sessions show|archive|delete <id>
  chat [prompt]                    one prompt, or one per line of input until its end
      --session ID  --title T  --policy FILE(.toml|.json)  --root DIR  --attach FILE...
      --command INTENT  --model PROVIDER/MODEL  --encrypt  --key-file FILE  --buffered
      without --policy: your stored policy named "default" (its latest version), if any
  preview <prompt> [--session ID] [--policy FILE] [--command INTENT] [--model P/M]
  usage [--from YYYY-MM-DD] [--to YYYY-MM-DD]
                                   your usage across sessions (default: this UTC month):
                                   the spend of each day and model, and what is left of
                                   your budget today and this month
  usage <session-id>               one session's usage
  why <session-id> [--turn N]      a turn (a prompt and what answered it): each model
                                   call's classification, routing, fallbacks, context,
                                   tokens and cost, the tool calls between, the total
                                   (default: the last; N counts prompts from 1); --key-file FILE
  trace <session-id> [--limit N] [--offset N]
                                   the trace as a table (every event unless --limit);
                                   --json: one raw event per line; --key-file FILE
  models [--save catalog.json]
  policy push <file.toml|json> --name NAME
                                   store the file as the next version of the named policy
  policy list                      your named policies with their latest version
  policy show <name> [--version N] a stored policy as TOML (default: the latest version)
  policy test <cases-dir> [--update] [--catalog FILE]
  admin users add NAME | list | rename ID NAME | disable ID | enable ID
  admin users budget ID [--daily USD|none] [--monthly USD|none]
                                   the operator's commands (a service with
                                   router.auth.operator_token), the token read
                                   from SWITCHYARD_OPERATOR_TOKEN

common: --url URL (or SWITCHYARD_URL; default http://127.0.0.1:7331),
        --json (data as JSON; a failure prints its error envelope as JSON on stderr),
        --provider-key PROVIDER=KEY (also OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY)
credentials and the session key live in $XDG_CONFIG_HOME/switchyard (or ~/.config/switchyard), mode 0600
exit status: 0 done, 1 failed (the error, its code and details on stderr), 2 bad usage
`;

const OPTIONS = {
  url: { type: "string" },
  json: { type: "boolean" },
  "provider-key": { type: "string", multiple: true },
  "api-key": { type: "string" },
  scope: { type: "string" },
  title: { type: "string" },
  session: { type: "string" },
  policy: { type: "string" },
  root: { type: "string" },
  attach: { type: "string", multiple: true },
  command: { type: "string" },
  model: { type: "string" },
  encrypt: { type: "boolean" },
  "key-file": { type: "string" },
  buffered: { type: "boolean" },
  limit: { type: "string" },
  expires: { type: "string" },
  daily: { type: "string" },
  monthly: { type: "string" },
  from: { type: "string" },
  to: { type: "string" },
  offset: { type: "string" },
  turn: { type: "string" },
  save: { type: "string" },
  update: { type: "boolean" },
  catalog: { type: "string" },
  name: { type: "string" },
  version: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

/** The commands that act for the logged-in user (besides `policy`, `admin` and `login`). */
const SIGNED_IN_COMMANDS = new Set([
  "keys",
  "logout",
  "sessions",
  "chat",
  "preview",
  "usage",
  "trace",
  "why",
  "models",
]);

type Flags = ReturnType<typeof parse>["values"];
const parse = (args: string[]) =>
  parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });

function count(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) {
    throw new UsageError(`--${name} expects an integer >= 0, got "${value}"`);
  }
  return Number(value);
}

/** The key for encrypted sessions: created on first use only when `create`. */
const keyLoader = (ctx: Context, flags: Flags, create: boolean) => () =>
  loadOrCreateKey(flags["key-file"] ?? defaultKeyPath(ctx.dir), create);

/** The stored `default` policy, said on stderr when there is one. */
async function defaultPolicy(ctx: Context) {
  const stored = await storedDefaultPolicy(ctx);
  if (stored === undefined) return undefined;
  ctx.term.err(`policy: ${stored.name} version ${stored.version} (stored)\n`);
  return stored.policy;
}

async function chatCommand(ctx: Context, prompt: string | undefined, flags: Flags): Promise<void> {
  let key = flags.encrypt ? await keyLoader(ctx, flags, true)() : undefined;
  if (flags.session !== undefined) {
    const detail = await ctx.client.session(flags.session).get();
    if (flags.encrypt && detail.key_id === undefined) {
      throw new Error(`session ${flags.session} is not encrypted`);
    }
    if (detail.key_id !== undefined) {
      key ??= await keyLoader(ctx, flags, false)();
      if (key?.keyId !== detail.key_id) {
        throw new Error(
          `session ${flags.session} is sealed with key '${detail.key_id}': give its key file with --key-file`,
        );
      }
    }
  }
  await chat(ctx, prompt, {
    session: flags.session,
    title: flags.title,
    policy: flags.policy ? await loadPolicy(flags.policy) : await defaultPolicy(ctx),
    key,
    root: resolve(flags.root ?? process.cwd()),
    attach: flags.attach ?? [],
    command: flags.command as never,
    model: flags.model,
    buffered: flags.buffered ?? false,
  });
}

async function run(argv: string[]): Promise<number> {
  const { values: flags, positionals } = parse(argv);
  const [command, ...rest] = positionals;
  const term = terminal();
  try {
    if (command === undefined || flags.help) {
      term.out(USAGE);
      return command === undefined && !flags.help ? 2 : 0;
    }
    if (command === "admin") {
      // The operator's token, not a user's credentials: nothing saved is sent.
      await admin((await openContext(flags, term)).url, term, rest, flags);
      return 0;
    }
    if (command === "policy" && rest[0] !== "test") {
      const apiKey = flags["api-key"] ?? process.env.SWITCHYARD_API_KEY;
      const ctx = await openContext(flags, term, apiKey);
      requireLogin(ctx);
      await policy(ctx, rest, flags);
      return 0;
    }
    if (command === "policy") {
      if (rest[1] === undefined) {
        throw new UsageError("usage: switchyard policy test <cases-dir> [--update]");
      }
      // Loaded only here: the routing core is the heaviest part of the client.
      const { policyTest } = await import("./policy_test.ts");
      const options = { update: flags.update ?? false, catalog: flags.catalog };
      return (await policyTest(term, rest[1], options)) ? 0 : 1;
    }
    // An unknown command is bad usage whether or not anyone is logged in.
    if (!SIGNED_IN_COMMANDS.has(command) && command !== "login") {
      throw new UsageError(`unknown command "${command}"; run \`switchyard --help\``);
    }
    const ctx = await openContext(flags, term, flags["api-key"] ?? process.env.SWITCHYARD_API_KEY);
    if (command === "login") return await login(ctx), 0;
    requireLogin(ctx);
    const id = () => {
      if (rest[0] === undefined) throw new UsageError(`usage: switchyard ${command} <session-id>`);
      return rest[0];
    };
    switch (command) {
      case "keys":
        await keys(ctx, rest, flags);
        break;
      case "logout":
        await logout(ctx);
        break;
      case "sessions":
        await sessions(ctx, rest, flags, keyLoader(ctx, flags, false));
        break;
      case "chat":
        await chatCommand(ctx, rest.length > 0 ? rest.join(" ") : undefined, flags);
        break;
      case "preview":
        if (rest.length === 0) throw new UsageError("usage: switchyard preview <prompt>");
        await preview(ctx, rest.join(" "), {
          session: flags.session,
          policy: flags.policy ? await loadPolicy(flags.policy) : undefined,
          root: resolve(flags.root ?? process.cwd()),
          command: flags.command,
          model: flags.model,
          json: flags.json,
        });
        break;
      case "usage":
        if (rest[0] === undefined) await periodUsage(ctx, flags);
        else await usage(ctx, rest[0], flags);
        break;
      case "trace":
        await trace(ctx, id(), {
          limit: count(flags.limit, "limit"),
          offset: count(flags.offset, "offset"),
          key: await keyLoader(ctx, flags, false)(),
          json: flags.json,
        });
        break;
      case "why":
        await why(ctx, id(), {
          turn: count(flags.turn, "turn"),
          json: flags.json,
          key: await keyLoader(ctx, flags, false)(),
        });
        break;
      case "models":
        await models(ctx, flags, Object.keys(providerKeys(flags["provider-key"])));
        break;
      default:
        throw new UsageError(`unknown command "${command}"; run \`switchyard --help\``);
    }
    return 0;
  } catch (error) {
    term.err(flags.json ? errorJson(error) : errorReport(error));
    return error instanceof UsageError ? 2 : 1;
  } finally {
    term.close();
  }
}

// `deno task cli -- …` hands the `--` on; it separates nothing here.
const argv = process.argv.slice(2);
try {
  process.exitCode = await run(argv[0] === "--" ? argv.slice(1) : argv);
} catch (error) {
  // Flags that do not parse.
  process.stderr.write(`${errorReport(error)}${USAGE}`);
  process.exitCode = 2;
}
