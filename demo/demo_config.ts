/**
 * The demo configuration file (demo/switchyard.toml), read by the demo's own
 * processes: the provider serves the models it declares, and the launcher
 * starts the provider where `base_url` points. The service reads the same file
 * as any configuration.
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { parse, stringify } from "smol-toml";
import type { DemoModel } from "./provider/answers.ts";

export const DEMO_CONFIG = fileURLToPath(new URL("./switchyard.toml", import.meta.url));
export const DEMO_POLICY = fileURLToPath(new URL("./policy.toml", import.meta.url));
/** The provider instance the demo declares. */
export const DEMO_PROVIDER = "openai-compat:demo";

export interface DemoConfig {
  /** The parsed file, for writing a copy with another provider address. */
  document: Record<string, unknown>;
  host: string;
  port: number;
  storagePath: string;
  providerUrl: URL;
  models: DemoModel[];
}

type Table = Record<string, unknown>;
const table = (value: unknown, key: string): Table => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error(`demo configuration: ${key} is missing or not a table`);
  }
  return value as Table;
};

export async function readDemoConfig(path = DEMO_CONFIG): Promise<DemoConfig> {
  const document = parse(await readFile(path, "utf8")) as Table;
  const router = table(document.router, "router");
  const provider = table(table(router.providers, "router.providers")[DEMO_PROVIDER], DEMO_PROVIDER);
  const models = (provider.models as Table[] ?? []).map((m) => ({
    id: String(m.name),
    displayName: String(m.display_name ?? m.name),
    contextWindow: Number(m.max_context_tokens ?? 32_768),
  }));
  return {
    document,
    host: String(router.host ?? "127.0.0.1"),
    port: Number(router.port ?? 7331),
    storagePath: String(table(router.storage ?? {}, "router.storage").path ?? "./data"),
    providerUrl: new URL(String(provider.base_url)),
    models,
  };
}

/** The file's text with the demo provider at `baseUrl` instead. */
export function withProviderUrl(config: DemoConfig, baseUrl: string): string {
  const copy = structuredClone(config.document);
  const router = table(copy.router, "router");
  table(table(router.providers, "router.providers")[DEMO_PROVIDER], DEMO_PROVIDER).base_url =
    baseUrl;
  return stringify(copy);
}
