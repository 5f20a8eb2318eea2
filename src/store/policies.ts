/**
 * Named policies (decisions.md §12): each store of a name is a new immutable
 * version of it for its user, numbered from 1. The policy is the validated
 * object with its defaults filled in, kept as `json` so its keys keep their
 * order (migration 012); it is read back as text and parsed here, so both
 * drivers return the same object.
 */
import type { Policy } from "../core/turn_request_types.ts";
import type { Queryable } from "./db.ts";

export interface NamedPolicy {
  name: string;
  version: number;
  created_at: Date;
  policy: Policy;
}

export interface PolicyVersionSummary {
  name: string;
  version: number;
  created_at: Date;
}

interface PolicyRow extends PolicyVersionSummary {
  policy_json: string;
}

const COLUMNS = "name, version, created_at, policy::text AS policy_json";

/** The largest version a query accepts (`integer`); larger ones are absent. */
const MAX_VERSION = 2_147_483_647;

/** How often a store retries when a concurrent store of the same name took its number. */
const INSERT_ATTEMPTS = 8;

function named(row: PolicyRow): NamedPolicy {
  return {
    name: row.name,
    version: row.version,
    created_at: row.created_at,
    policy: JSON.parse(row.policy_json) as Policy,
  };
}

/**
 * Stores `policy` as the next version of `name` for the user. Two stores of
 * the same name at once both read the same latest version; the one that loses
 * the key inserts nothing and tries again with the next number.
 */
export async function insertPolicyVersion(
  db: Queryable,
  p: { userId: string; name: string; policy: Policy; now: Date },
): Promise<NamedPolicy> {
  const text = JSON.stringify(p.policy);
  for (let attempt = 1;; attempt++) {
    const rows = await db.query<PolicyRow>(
      `INSERT INTO policies (user_id, name, version, policy, created_at)
       SELECT $1, $2, coalesce(max(version), 0) + 1, $3::json, $4
       FROM policies WHERE user_id = $1 AND name = $2
       ON CONFLICT (user_id, name, version) DO NOTHING
       RETURNING ${COLUMNS}`,
      [p.userId, p.name, text, p.now],
    );
    if (rows.length > 0) return named(rows[0]);
    if (attempt >= INSERT_ATTEMPTS) {
      throw new Error(
        `storing policy version: ${INSERT_ATTEMPTS} concurrent stores took its number`,
      );
    }
  }
}

/**
 * The user's policy `name`: version `version`, or the latest when it is null.
 * Another user's name, an unknown name or version: null.
 */
export async function findPolicy(
  db: Queryable,
  userId: string,
  name: string,
  version: number | null,
): Promise<NamedPolicy | null> {
  if (
    version !== null &&
    !(Number.isInteger(version) && version >= 1 && version <= MAX_VERSION)
  ) {
    return null;
  }
  const rows = await db.query<PolicyRow>(
    `SELECT ${COLUMNS} FROM policies
     WHERE user_id = $1 AND name = $2 AND ($3::integer IS NULL OR version = $3)
     ORDER BY version DESC LIMIT 1`,
    [userId, name, version],
  );
  return rows.length === 0 ? null : named(rows[0]);
}

/** The user's names, each with its latest version, sorted by name (code units). */
export async function listPolicyNames(
  db: Queryable,
  userId: string,
): Promise<PolicyVersionSummary[]> {
  return await db.query<PolicyVersionSummary>(
    `SELECT DISTINCT ON (name) name, version, created_at FROM policies
     WHERE user_id = $1
     ORDER BY name, version DESC`,
    [userId],
  );
}

/** Removes the name and every version of it; false when the user had no such name. */
export async function deletePolicy(
  db: Queryable,
  userId: string,
  name: string,
): Promise<boolean> {
  const rows = await db.query(
    "DELETE FROM policies WHERE user_id = $1 AND name = $2 RETURNING version",
    [userId, name],
  );
  return rows.length > 0;
}
