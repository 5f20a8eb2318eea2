import { fail, ok, type Outcome } from "../core/errors.ts";
import type { ModelAuth, ProviderDescriptor } from "../core/model.ts";
import { checkProviderId, COMPAT_PREFIX } from "../core/model_reference.ts";
import type { LiveModel } from "./catalog.ts";
import { type ModelDeclaration, readModelDeclarations } from "./model_declarations.ts";

/** The wire protocol a provider speaks; one listing and one adapter per protocol. */
export type WireProtocol = "openai" | "anthropic" | "gemini" | "ollama";

/** One provider the service can call: plain data, built once from configuration. */
export interface ProviderEntry {
  id: string;
  display_name: string;
  local: boolean;
  protocol: WireProtocol;
  /** Without a trailing slash; OpenAI-style bases include their `/v1`. */
  base_url: string;
  auth: ModelAuth;
  /** Configured models (ids, or declared figures); when present they replace the live listing. */
  models?: readonly LiveModel[];
}

export interface Registry {
  providers: readonly ProviderEntry[];
}

/** The `router.providers` table as configuration hands it over. */
export interface ProvidersConfig {
  providers?: Record<string, ProviderSettings>;
}

export interface ProviderSettings {
  base_url?: string;
  local?: boolean;
  display_name?: string;
  models?: ModelDeclaration[];
}

const BUILT_IN: readonly ProviderEntry[] = [
  {
    id: "anthropic",
    display_name: "Anthropic",
    local: false,
    protocol: "anthropic",
    base_url: "https://api.anthropic.com",
    auth: "api_key",
  },
  {
    id: "gemini",
    display_name: "Google Gemini",
    local: false,
    protocol: "gemini",
    base_url: "https://generativelanguage.googleapis.com",
    auth: "api_key",
  },
  {
    id: "ollama",
    display_name: "Ollama",
    local: true,
    protocol: "ollama",
    base_url: "http://127.0.0.1:11434",
    auth: "none",
  },
  {
    id: "openai",
    display_name: "OpenAI",
    local: false,
    protocol: "openai",
    base_url: "https://api.openai.com/v1",
    auth: "api_key",
  },
];

export const BUILT_IN_PROVIDER_IDS: readonly string[] = BUILT_IN.map((p) => p.id);

const keyOf = (id: string, field?: string) =>
  `router.providers.${id.includes(":") ? `"${id}"` : id}${field ? `.${field}` : ""}`;

const invalid = (key: string, problem: string): Outcome<never> =>
  fail("invalid_provider_configuration", `invalid configuration ${key}: ${problem}`, { key });

function normaliseBaseUrl(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  try {
    const url = new URL(value);
    if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
    if (url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "") {
      return undefined;
    }
    return url.href.replace(/\/+$/, "");
  } catch {
    return undefined;
  }
}

function applySettings(
  base: ProviderEntry,
  settings: ProviderSettings,
): Outcome<ProviderEntry> {
  const entry: ProviderEntry = { ...base };
  if (settings.base_url !== undefined) {
    const url = normaliseBaseUrl(settings.base_url);
    if (url === undefined) {
      return invalid(
        keyOf(base.id, "base_url"),
        `"${settings.base_url}" is not an http(s) URL without query or credentials`,
      );
    }
    entry.base_url = url;
  }
  if (settings.display_name !== undefined) {
    if (typeof settings.display_name !== "string" || settings.display_name.trim() === "") {
      return invalid(keyOf(base.id, "display_name"), "expected a non-empty string");
    }
    entry.display_name = settings.display_name;
  }
  if (settings.local !== undefined) {
    if (typeof settings.local !== "boolean") {
      return invalid(keyOf(base.id, "local"), "expected true or false");
    }
    // A cloud API declared local would let restricted content leave the host.
    if (settings.local && base.protocol !== "ollama" && !base.id.startsWith(COMPAT_PREFIX)) {
      return invalid(keyOf(base.id, "local"), `"${base.id}" is a cloud API and cannot be local`);
    }
    entry.local = settings.local;
  }
  if (settings.models !== undefined) {
    const read = readModelDeclarations(settings.models, keyOf(base.id, "models"));
    if ("problem" in read) return invalid(read.key, read.problem);
    entry.models = read.models;
  }
  return ok(entry);
}

/**
 * Builds the registry: the four built-in providers (with configured overrides)
 * and every configured `openai-compat:<name>` instance. A compatible instance
 * needs a `base_url`, is remote unless declared `local = true`, and takes an
 * optional key. Failures name the configuration key at fault.
 */
export function buildRegistry(config: ProvidersConfig = {}): Outcome<Registry> {
  const settings = config.providers ?? {};
  const entries: ProviderEntry[] = [];
  for (const base of BUILT_IN) {
    const applied = applySettings(base, settings[base.id] ?? {});
    if (!applied.ok) return applied;
    entries.push(applied.value);
  }
  const compatIds = Object.keys(settings).filter((id) => !BUILT_IN_PROVIDER_IDS.includes(id));
  for (const id of compatIds.sort()) {
    const parsed = checkProviderId(id);
    if (parsed.kind !== "compat") {
      const problem = parsed.kind === "invalid"
        ? `provider id "${id}" is malformed, expected "openai-compat:<name>" with <name> of [a-z0-9_-]`
        : `unknown provider "${id}", expected one of ${
          BUILT_IN_PROVIDER_IDS.join(", ")
        } or "openai-compat:<name>"`;
      return invalid(keyOf(id), problem);
    }
    // The credential header carries the bare name, so it must not shadow a built-in.
    if (BUILT_IN_PROVIDER_IDS.includes(parsed.name)) {
      return invalid(keyOf(id), `instance name "${parsed.name}" is taken by a built-in provider`);
    }
    if (settings[id]?.base_url === undefined) {
      return invalid(keyOf(id, "base_url"), "a compatible instance needs a base_url");
    }
    const base: ProviderEntry = {
      id,
      display_name: parsed.name,
      local: false,
      protocol: "openai",
      base_url: "",
      auth: "optional_api_key",
    };
    const applied = applySettings(base, settings[id]);
    if (!applied.ok) return applied;
    entries.push(applied.value);
  }
  return ok({ providers: entries });
}

export function findProvider(registry: Registry, id: string): ProviderEntry | undefined {
  return registry.providers.find((p) => p.id === id);
}

/**
 * Resolves a provider id from a model reference or policy: a malformed id is
 * `invalid_provider_name`, a well-formed one the registry lacks is `unknown_provider`.
 */
export function resolveProvider(registry: Registry, id: string): Outcome<ProviderEntry> {
  const parsed = checkProviderId(id);
  if (parsed.kind === "invalid") {
    return fail("invalid_provider_name", `invalid provider name: "${id}"`, { provider: id });
  }
  const entry = findProvider(registry, id);
  if (entry === undefined) {
    return fail("unknown_provider", `unknown provider: "${id}"`, { provider: id });
  }
  return ok(entry);
}

/** Descriptors for GET /llm/providers, in registry order. */
export function providerDescriptors(registry: Registry): ProviderDescriptor[] {
  return registry.providers.map((p) => ({
    id: p.id,
    display_name: p.display_name,
    local: p.local,
  }));
}
