/**
 * The `models = [...]` of an `openai-compat:<name>` instance (issue 11): a
 * bare model id, or a table declaring what the instance's `/models` listing
 * never says — window, output limit, display name, capabilities and prices.
 * Declared values win for that model. Every key is checked; a problem names
 * the key, as every configuration error does.
 */
import { isDecimalString } from "../core/cost.ts";
import { CAPABILITIES, type Capabilities } from "../core/model.ts";
import type { LiveModel } from "./catalog.ts";

/** One entry as the TOML file gives it. */
export type ModelDeclaration = string | Record<string, unknown>;

/** `memory` is the service's own tool, derived from `tools`; it is not declared. */
const DECLARABLE = CAPABILITIES.filter((c) => c !== "memory");
const KEYS = [
  "name",
  "display_name",
  "max_context_tokens",
  "max_output_tokens",
  "capabilities",
  "input_cost_per_million_tokens",
  "output_cost_per_million_tokens",
  "cache_read_cost_per_million_tokens",
  "cache_write_cost_per_million_tokens",
] as const;

const PRICES = [
  "input_cost_per_million_tokens",
  "output_cost_per_million_tokens",
  "cache_read_cost_per_million_tokens",
  "cache_write_cost_per_million_tokens",
] as const;

/** What is wrong, and the configuration key of the value at fault. */
export interface DeclarationProblem {
  key: string;
  problem: string;
}
type Problem = DeclarationProblem;

const show = (value: unknown) =>
  typeof value === "string" ? `"${value}"` : JSON.stringify(value) ?? String(value);

function declaredModel(entry: Record<string, unknown>, at: string): LiveModel | Problem {
  for (const key of Object.keys(entry)) {
    if (!(KEYS as readonly string[]).includes(key)) {
      return { key: `${at}.${key}`, problem: `unknown key; expected one of ${KEYS.join(", ")}` };
    }
  }
  const text = (key: string) => {
    const v = entry[key];
    return typeof v === "string" && v.trim() !== "" ? v : undefined;
  };
  if (text("name") === undefined) {
    return { key: `${at}.name`, problem: `expected a non-empty model id, got ${show(entry.name)}` };
  }
  const model: LiveModel = { id: entry.name as string };
  if (entry.display_name !== undefined) {
    if (text("display_name") === undefined) {
      return { key: `${at}.display_name`, problem: "expected a non-empty string" };
    }
    model.display_name = entry.display_name as string;
  }
  for (const key of ["max_context_tokens", "max_output_tokens"] as const) {
    const v = entry[key];
    if (v === undefined) continue;
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v <= 0) {
      return { key: `${at}.${key}`, problem: `expected a positive integer, got ${show(v)}` };
    }
    model[key] = v;
  }
  for (const key of PRICES) {
    const v = entry[key];
    if (v === undefined) continue;
    // A TOML float is binary floating point; money is an exact decimal string.
    if (typeof v !== "string" || !isDecimalString(v)) {
      return {
        key: `${at}.${key}`,
        problem: `expected a decimal string of USD per million tokens such as "0.40", got ${
          show(v)
        }`,
      };
    }
    model[key] = v;
  }
  if (entry.capabilities !== undefined) {
    const caps = entry.capabilities;
    if (typeof caps !== "object" || caps === null || Array.isArray(caps)) {
      return { key: `${at}.capabilities`, problem: "expected a table of true or false flags" };
    }
    const declared: Capabilities = {};
    for (const [flag, v] of Object.entries(caps)) {
      if (!(DECLARABLE as readonly string[]).includes(flag)) {
        return {
          key: `${at}.capabilities.${flag}`,
          problem: `unknown capability; expected one of ${DECLARABLE.join(", ")}`,
        };
      }
      if (typeof v !== "boolean") {
        return { key: `${at}.capabilities.${flag}`, problem: `expected true or false` };
      }
      declared[flag as keyof Capabilities] = v;
    }
    model.capabilities = declared;
  }
  return model;
}

/**
 * Reads a `models` list: bare ids and declaration tables, sorted by id. `key`
 * is the list's configuration key; a problem names the entry's own key.
 */
export function readModelDeclarations(
  value: unknown,
  key: string,
): { models: LiveModel[] } | Problem {
  if (!Array.isArray(value)) {
    return { key, problem: `expected a list of model ids or tables, got ${show(value)}` };
  }
  const byId = new Map<string, LiveModel>();
  for (const [i, entry] of value.entries()) {
    const at = `${key}[${i}]`;
    let model: LiveModel | Problem;
    if (typeof entry === "string") {
      model = entry.trim() === ""
        ? { key: at, problem: "expected a non-empty model id" }
        : { id: entry };
    } else if (typeof entry === "object" && entry !== null && !Array.isArray(entry)) {
      model = declaredModel(entry as Record<string, unknown>, at);
    } else {
      model = { key: at, problem: `expected a model id or a table, got ${show(entry)}` };
    }
    if ("problem" in model) return model;
    const earlier = byId.get(model.id);
    // A bare id repeated is harmless; a second declaration would be ambiguous.
    if (earlier !== undefined && (typeof entry !== "string" || Object.keys(earlier).length > 1)) {
      return { key: at, problem: `model "${model.id}" is declared twice` };
    }
    byId.set(model.id, model);
  }
  return { models: [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)) };
}
