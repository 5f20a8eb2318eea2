// The SQL files are the truth; this list only makes them part of the module
// graph, so a compiled single-file binary carries them too.
import m001 from "../../migrations/001_initial.sql" with { type: "text" };
import m002 from "../../migrations/002_trace_matched_rule.sql" with { type: "text" };
import m003 from "../../migrations/003_run_handoffs.sql" with { type: "text" };
import m004 from "../../migrations/004_turn_path.sql" with { type: "text" };
import m005 from "../../migrations/005_instances.sql" with { type: "text" };
import m006 from "../../migrations/006_history_as_json.sql" with { type: "text" };
import m007 from "../../migrations/007_history_since.sql" with { type: "text" };
import m008 from "../../migrations/008_append_in_fewer_statements.sql" with { type: "text" };
import m009 from "../../migrations/009_group_commit.sql" with { type: "text" };
import m010 from "../../migrations/010_append_without_foreign_keys.sql" with { type: "text" };
import m011 from "../../migrations/011_claims_in_fewer_statements.sql" with { type: "text" };
import m012 from "../../migrations/012_named_policies.sql" with { type: "text" };
import m013 from "../../migrations/013_conversation_turns.sql" with { type: "text" };
import m014 from "../../migrations/014_budgets.sql" with { type: "text" };
import m015 from "../../migrations/015_keys_and_operator.sql" with { type: "text" };
import m016 from "../../migrations/016_instance_liveness_locks.sql" with { type: "text" };
import m017 from "../../migrations/017_budget_reservations_index.sql" with { type: "text" };
import m018 from "../../migrations/018_responses.sql" with { type: "text" };
import m019 from "../../migrations/019_cache_write_tokens.sql" with { type: "text" };
import m020 from "../../migrations/020_budget_removals.sql" with { type: "text" };
import m021 from "../../migrations/021_conversation_keys.sql" with { type: "text" };
import m022 from "../../migrations/022_budget_days.sql" with { type: "text" };
import fInstances from "../../migrations/functions/instances.sql" with { type: "text" };
import fSessions from "../../migrations/functions/sessions.sql" with { type: "text" };
import fTurnReads from "../../migrations/functions/turn_reads.sql" with { type: "text" };
import fTurnWrites from "../../migrations/functions/turn_writes.sql" with { type: "text" };
import fClaims from "../../migrations/functions/claims.sql" with { type: "text" };
import fBudgets from "../../migrations/functions/budgets.sql" with { type: "text" };

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: "001_initial", sql: m001 },
  { version: 2, name: "002_trace_matched_rule", sql: m002 },
  { version: 3, name: "003_run_handoffs", sql: m003 },
  { version: 4, name: "004_turn_path", sql: m004 },
  { version: 5, name: "005_instances", sql: m005 },
  { version: 6, name: "006_history_as_json", sql: m006 },
  { version: 7, name: "007_history_since", sql: m007 },
  { version: 8, name: "008_append_in_fewer_statements", sql: m008 },
  { version: 9, name: "009_group_commit", sql: m009 },
  { version: 10, name: "010_append_without_foreign_keys", sql: m010 },
  { version: 11, name: "011_claims_in_fewer_statements", sql: m011 },
  { version: 12, name: "012_named_policies", sql: m012 },
  { version: 13, name: "013_conversation_turns", sql: m013 },
  { version: 14, name: "014_budgets", sql: m014 },
  { version: 15, name: "015_keys_and_operator", sql: m015 },
  { version: 16, name: "016_instance_liveness_locks", sql: m016 },
  { version: 17, name: "017_budget_reservations_index", sql: m017 },
  { version: 18, name: "018_responses", sql: m018 },
  { version: 19, name: "019_cache_write_tokens", sql: m019 },
  { version: 20, name: "020_budget_removals", sql: m020 },
  { version: 21, name: "021_conversation_keys", sql: m021 },
  { version: 22, name: "022_budget_days", sql: m022 },
];

/**
 * A repeatable definition: `CREATE OR REPLACE` of the current version of a
 * family of functions, applied after the numbered migrations whenever its
 * content changes (migrate.ts). The numbered files keep the definitions they
 * once made, as history: they are what a database of their time ran.
 */
export interface Repeatable {
  name: string;
  sql: string;
}

/**
 * In the order they are applied: a `LANGUAGE sql` body is checked when it is
 * created, so a family comes after the ones it calls (budgets call instances').
 */
export const REPEATABLES: readonly Repeatable[] = [
  { name: "functions/instances", sql: fInstances },
  { name: "functions/sessions", sql: fSessions },
  { name: "functions/turn_reads", sql: fTurnReads },
  { name: "functions/turn_writes", sql: fTurnWrites },
  { name: "functions/claims", sql: fClaims },
  { name: "functions/budgets", sql: fBudgets },
];
