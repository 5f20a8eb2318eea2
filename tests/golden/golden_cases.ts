/**
 * The golden corpus (fixtures/golden/**.json) and what every case runs
 * against: one provider registry for the whole corpus, and the translation of
 * a case's `listings` into the answers each provider's listing endpoint gives,
 * over real HTTP (the fake provider) or in memory (a fetch stub).
 */
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ProviderSettings } from "../../src/config.ts";
import type { WireProtocol } from "../../src/providers/registry.ts";
import type { FixtureResponse } from "../support/fake_provider.ts";

/** One model a listing names: an id, or an id plus extra fields of the provider's wire object. */
export type ListedModel = string | ({ id: string } & Record<string, unknown>);

/** What one provider's listing endpoint answers for a case. */
export type ListingSpec =
  | { models: ListedModel[] }
  | { status: number }
  | { timeout: true }
  | { malformed: true };

export interface GoldenCase {
  name: string;
  description: string;
  /** Provider id → listing answer; a provider left out answers an empty listing. */
  listings: Record<string, ListingSpec>;
  /** Header name → placeholder key, sent as is. */
  credentials: Record<string, string>;
  /** The turn request body of preview. */
  request: unknown;
  expected: unknown;
}

export interface LoadedCase {
  file: string;
  golden: GoldenCase;
}

export const GOLDEN_ROOT = fileURLToPath(new URL("../../fixtures/golden/", import.meta.url));

/**
 * The registry of the corpus: the four built-ins plus three compatible
 * instances, a local one (`lab`), a remote one (`cloud`) and a local one with
 * configured models that is never listed (`pinned`). fixtures/golden/README.md
 * says the same.
 */
export const GOLDEN_PROVIDER_IDS = [
  "openai",
  "anthropic",
  "gemini",
  "ollama",
  "openai-compat:lab",
  "openai-compat:cloud",
  "openai-compat:pinned",
] as const;

export function goldenProviders(urlOf: (id: string) => string): Record<string, ProviderSettings> {
  return {
    openai: { base_url: `${urlOf("openai")}/v1` },
    anthropic: { base_url: urlOf("anthropic") },
    gemini: { base_url: urlOf("gemini") },
    ollama: { base_url: urlOf("ollama") },
    "openai-compat:lab": { base_url: `${urlOf("openai-compat:lab")}/v1`, local: true },
    "openai-compat:cloud": { base_url: `${urlOf("openai-compat:cloud")}/v1` },
    "openai-compat:pinned": {
      base_url: `${urlOf("openai-compat:pinned")}/v1`,
      local: true,
      models: ["fixed-32k"],
    },
  };
}

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...await walk(path));
    else if (entry.name.endsWith(".json")) out.push(path);
  }
  return out;
}

/** Every case, sorted by file path (code units), so runs list them in one order. */
export async function loadCases(): Promise<LoadedCase[]> {
  const files = (await walk(GOLDEN_ROOT)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const cases: LoadedCase[] = [];
  for (const file of files) {
    cases.push({ file, golden: JSON.parse(await readFile(file, "utf8")) as GoldenCase });
  }
  return cases;
}

/** Rewrites a case with a new `expected`, keeping the other fields and their order. */
export async function writeExpected(loaded: LoadedCase, expected: unknown): Promise<void> {
  const updated = { ...loaded.golden, expected };
  await writeFile(loaded.file, `${JSON.stringify(updated, null, 2)}\n`);
}

function wireModel(protocol: WireProtocol, model: ListedModel): Record<string, unknown> {
  const { id, ...extra } = typeof model === "string" ? { id: model } : model;
  switch (protocol) {
    case "openai":
      return { id, object: "model", owned_by: "golden", ...extra };
    case "anthropic":
      return { id, type: "model", created_at: "2025-01-01T00:00:00Z", ...extra };
    case "gemini":
      return { name: `models/${id}`, supportedGenerationMethods: ["generateContent"], ...extra };
    case "ollama":
      return { name: id, model: id, ...extra };
  }
}

function listingBody(protocol: WireProtocol, models: ListedModel[]): unknown {
  const items = models.map((m) => wireModel(protocol, m));
  switch (protocol) {
    case "openai":
      return { object: "list", data: items };
    case "anthropic":
      return { data: items, has_more: false };
    case "gemini":
    case "ollama":
      return { models: items };
  }
}

/** Longer than any listing deadline the golden test uses. */
export const TIMEOUT_DELAY_MS = 3000;

/** The answer of a provider's listing endpoint for `spec` (absent: an empty listing). */
export function listingResponse(
  protocol: WireProtocol,
  spec: ListingSpec | undefined,
): FixtureResponse {
  const json = { "content-type": "application/json" };
  if (spec === undefined) return { status: 200, headers: json, body: listingBody(protocol, []) };
  if ("status" in spec) {
    return { status: spec.status, headers: json, body: { error: { message: "golden failure" } } };
  }
  if ("timeout" in spec) {
    return {
      status: 200,
      headers: json,
      body: listingBody(protocol, []),
      delay_ms: TIMEOUT_DELAY_MS,
    };
  }
  if ("malformed" in spec) return { status: 200, headers: json, body: "<html>not json</html>" };
  return { status: 200, headers: json, body: listingBody(protocol, spec.models) };
}

/**
 * The `/api/show` answers an Ollama listing leads to, one per listed model in
 * order: an empty object, an Ollama that states nothing beyond the tags, so
 * each model keeps the Ollama defaults the cases were written against.
 */
export function showResponses(protocol: WireProtocol, spec: ListingSpec | undefined) {
  if (protocol !== "ollama" || spec === undefined || !("models" in spec)) return [];
  const json = { "content-type": "application/json" };
  return spec.models.map((): FixtureResponse => ({ status: 200, headers: json, body: {} }));
}
