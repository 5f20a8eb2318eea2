/**
 * Small checks shared by the adapters for the JSON they receive: a chunk that
 * is not JSON, or tool arguments that are not an object, end the call with a
 * `ProviderError` instead of a half-understood answer.
 */
import { ProviderError } from "./errors.ts";

export function parseChunk(provider: string, text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ProviderError("unknown", `${provider} sent a malformed ${what}: not JSON`, provider);
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Tool arguments as the model wrote them: a JSON text (empty means `{}`) or an object. */
export function toolArguments(
  provider: string,
  name: string,
  raw: unknown,
): Record<string, unknown> {
  let value = raw;
  if (typeof raw === "string") {
    if (raw.trim() === "") return {};
    try {
      value = JSON.parse(raw);
    } catch {
      value = undefined;
    }
  }
  if (raw === undefined || raw === null) return {};
  if (!isRecord(value)) {
    throw new ProviderError(
      "unknown",
      `${provider} sent malformed arguments for tool "${name}": expected a JSON object`,
      provider,
    );
  }
  return value;
}

export function optionalCount(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** Drops absent counts so a usage event never carries an unreported zero. */
export function definedOnly<T extends Record<string, number | undefined>>(usage: T): T {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(usage)) if (value !== undefined) out[key] = value;
  return out as T;
}
