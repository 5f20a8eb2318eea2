/**
 * `switchyard policy push|list|show`: the caller's named policies on the
 * service. A push stores a policy file (TOML or JSON) as the next version of
 * a name; show prints a version as TOML, which push reads back unchanged.
 */
import { stringify } from "smol-toml";
import { SwitchyardError } from "../errors.ts";
import type { NamedPolicy, Policy } from "../types.ts";
import type { Context } from "./context.ts";
import { loadPolicy } from "./policy_file.ts";
import { UsageError } from "./usage_error.ts";

/** The policy chat uses when no `--policy` file is given. */
export const DEFAULT_POLICY_NAME = "default";

/** A policy as TOML. TOML has no null: a null field is its default, so it is left out. */
export function policyToml(policy: Policy): string {
  return stringify(policy as Record<string, unknown>);
}

function versionFlag(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9]\d*$/.test(value)) {
    throw new UsageError(`--version expects an integer >= 1, got "${value}"`);
  }
  return Number(value);
}

/**
 * The caller's stored `default` policy, or undefined when there is none (the
 * service's defaults then apply, as without any policy).
 */
export async function storedDefaultPolicy(ctx: Context): Promise<NamedPolicy | undefined> {
  try {
    return await ctx.client.policies.get(DEFAULT_POLICY_NAME);
  } catch (error) {
    if (error instanceof SwitchyardError && error.code === "not_found") return undefined;
    throw error;
  }
}

export async function policy(
  ctx: Context,
  args: string[],
  flags: { name?: string; version?: string; json?: boolean },
): Promise<void> {
  const [action, arg] = args;
  switch (action) {
    case "push": {
      if (arg === undefined || flags.name === undefined) {
        throw new UsageError("usage: switchyard policy push <file.toml|file.json> --name NAME");
      }
      const stored = await ctx.client.policies.put(flags.name, await loadPolicy(arg));
      if (flags.json) return ctx.term.out(`${JSON.stringify(stored, null, 2)}\n`);
      return ctx.term.out(`${stored.name} version ${stored.version}\n`);
    }
    case "list": {
      const list = await ctx.client.policies.list();
      if (flags.json) return ctx.term.out(`${JSON.stringify(list, null, 2)}\n`);
      for (const p of list) ctx.term.out(`${p.name}  version ${p.version}  ${p.created_at}\n`);
      if (list.length === 0) ctx.term.err("no policies\n");
      return;
    }
    case "show": {
      if (arg === undefined) {
        throw new UsageError("usage: switchyard policy show <name> [--version N]");
      }
      const found = await ctx.client.policies.get(arg, versionFlag(flags.version));
      if (flags.json) return ctx.term.out(`${JSON.stringify(found, null, 2)}\n`);
      ctx.term.out(`# ${found.name} version ${found.version}, stored ${found.created_at}\n`);
      return ctx.term.out(policyToml(found.policy));
    }
    default:
      throw new UsageError(
        `unknown policy action "${action ?? ""}": expected push, list, show or test`,
      );
  }
}
