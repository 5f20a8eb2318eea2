/**
 * The service's own command line (the single binary, `deno task start`):
 * which subcommand, and whether its arguments are ones it takes. Pure: main.ts
 * prints and exits. Anything it does not know is a usage error (exit 2), never
 * a service started on the default port by mistake.
 */

export type Command =
  | { kind: "help" }
  | { kind: "version" }
  /** `args` are the options left for loadConfig (`--config <path>`). */
  | { kind: "serve"; args: string[] }
  | { kind: "migrate"; args: string[] }
  /** `args` are the whole line, as main.ts's backup command reads it. */
  | { kind: "backup" | "restore"; args: string[] }
  | { kind: "usage_error"; message: string };

export const USAGE = `usage: switchyard [command] [options]

commands:
  serve                        start the service (the default when no command is given)
  migrate                      apply the database migrations, then exit
  backup <file>                write the embedded store to <file>
  restore <file> [--force]     replace the embedded store with <file>

options:
  --config <path>              the configuration file (else ROUTER_CONFIG, else ./switchyard.toml)
  -h, --help                   print this help and exit
  -V, --version                print the version and exit

The operator's commands (switchyard admin users add NAME | list | disable ID |
enable ID | budget ID --daily 5 --monthly 100) and a user's (keys, chat, why, ...)
belong to the command-line client, which talks to a running service over HTTP:
run it with \`deno task cli <command>\` from the repository (clients/typescript),
with SWITCHYARD_OPERATOR_TOKEN set to the service's router.auth.operator_token
for admin. The service binary does not run them.`;

const HELP = new Set(["-h", "--help", "help"]);
const VERSION = new Set(["-V", "--version", "version"]);
const CLIENT_COMMANDS = new Set(["admin", "keys", "auth", "chat", "why", "sessions", "policy"]);

/**
 * Takes `--config <path>` and `--config=<path>` (and `--force` where
 * `allowForce`); anything else is a usage error naming it.
 */
function options(args: readonly string[], allowForce = false): string | null {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--config") {
      if (args[i + 1] === undefined) return "--config expects a file path";
      i++;
    } else if (arg.startsWith("--config=")) {
      continue;
    } else if (!(allowForce && arg === "--force")) {
      return `unknown argument "${arg}"`;
    }
  }
  return null;
}

export function parseCommandLine(args: readonly string[]): Command {
  // Asking for help or the version anywhere wins, so nothing starts by accident.
  if (args.some((a) => a === "-h" || a === "--help")) return { kind: "help" };
  if (args.some((a) => a === "-V" || a === "--version")) return { kind: "version" };
  const [first, ...rest] = args;
  const failed = (message: string): Command => ({ kind: "usage_error", message });
  if (first === undefined || first.startsWith("-")) {
    const problem = options(args);
    return problem === null ? { kind: "serve", args: [...args] } : failed(problem);
  }
  if (HELP.has(first) && rest.length === 0) return { kind: "help" };
  if (VERSION.has(first) && rest.length === 0) return { kind: "version" };
  if (first === "serve" || first === "migrate") {
    const problem = options(rest);
    return problem === null ? { kind: first, args: rest } : failed(problem);
  }
  if (first === "backup" || first === "restore") {
    const [file, ...more] = rest;
    if (file === undefined || file.startsWith("-")) {
      return failed(`${first} expects a file: ${first} <file>`);
    }
    const problem = options(more, first === "restore");
    return problem === null ? { kind: first, args: [...args] } : failed(problem);
  }
  if (CLIENT_COMMANDS.has(first)) {
    return failed(
      `"${first}" is a command of the command-line client, not of the service: run \`deno task cli ${first} ...\``,
    );
  }
  return failed(`unknown command "${first}"`);
}
