/**
 * The demo policy stored as the demo user's named policies, through the
 * public API: `default` (what `model: "switchyard"` routes with on the
 * OpenAI- and Anthropic-compatible surfaces, and what `switchyard chat` uses
 * without `--policy`) and `demo` (`switchyard/demo`, for Claude Code).
 *
 * A name gets a new version only when the file's policy differs from its
 * latest one, so restarting the demo does not pile up identical versions. The
 * comparison is between normalised policies: the file's, read by the service's
 * own validator (defaults filled in, as the service stores it), and the latest
 * stored version, key order aside.
 */
import { parsePolicy } from "../src/http/policy_body.ts";

/** The names the demo stores its policy under, in order. */
export const DEMO_POLICY_NAMES = ["default", "demo"] as const;

export interface StoredPolicy {
  name: string;
  version: number;
  /** True when this start stored a new version. */
  created: boolean;
}

/** JSON with every object's keys sorted: the same policy, whatever the order it comes back in. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${
      entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(
        ",",
      )
    }}`;
  }
  return JSON.stringify(value);
}

async function call(
  url: string,
  token: string,
  method: string,
  body?: unknown,
) {
  const response = await fetch(url, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // deno-lint-ignore no-explicit-any
  const json: any = await response.json().catch(() => ({}));
  return { status: response.status, body: json };
}

/** Stores `policy` (the parsed demo/policy.toml) under each demo name whose latest differs. */
export async function storeDemoPolicies(
  base: string,
  token: string,
  policy: Record<string, unknown>,
): Promise<StoredPolicy[]> {
  const parsed = parsePolicy(policy);
  // An invalid file is the service's to refuse, with its own message.
  const wanted = parsed.ok ? canonicalJson(parsed.value) : null;
  const stored: StoredPolicy[] = [];
  for (const name of DEMO_POLICY_NAMES) {
    const url = `${base}/api/v1/policies/${name}`;
    const latest = await call(url, token, "GET");
    if (
      latest.status === 200 && wanted !== null &&
      canonicalJson(latest.body.policy) === wanted
    ) {
      stored.push({ name, version: latest.body.version, created: false });
      continue;
    }
    if (latest.status !== 200 && latest.status !== 404) {
      throw new Error(`reading the policy "${name}" failed: ${latest.status}`);
    }
    const put = await call(url, token, "PUT", policy);
    if (put.status !== 201) {
      const error = put.body.error ?? {};
      throw new Error(
        `storing the demo policy as "${name}" failed: ${put.status} ${error.code ?? ""} ${
          error.message ?? ""
        }`.trim(),
      );
    }
    stored.push({ name, version: put.body.version, created: true });
  }
  return stored;
}
