/** Provider and model descriptors exactly as interface.md defines them. */

export const CAPABILITIES = [
  "streaming",
  "tools",
  "json_output",
  "system_prompt",
  "images",
  "reasoning",
  "memory",
] as const;
export type Capability = typeof CAPABILITIES[number];
export type Capabilities = Partial<Record<Capability, boolean>>;

export type ModelAuth = "none" | "api_key" | "optional_api_key" | { custom: string };

export interface ProviderDescriptor {
  id: string;
  display_name: string;
  local: boolean;
}

export interface ModelDescriptor {
  provider: string;
  model: string;
  display_name?: string | null;
  local: boolean;
  auth: ModelAuth;
  capabilities: Capabilities;
  max_context_tokens: number;
  max_output_tokens?: number | null;
  /** Decimal strings, present only when the price is known. */
  input_cost_per_million_tokens?: string;
  output_cost_per_million_tokens?: string;
  /** Price of prompt tokens read from the provider's cache; absent: the input price. */
  cache_read_cost_per_million_tokens?: string;
  /** Price of prompt tokens written to the provider's cache; absent: the input price. */
  cache_write_cost_per_million_tokens?: string;
  default_parameters: Record<string, unknown>;
}

export const UNAVAILABLE_REASONS = [
  "authentication",
  "context_length",
  "invalid_configuration",
  "invalid_credentials",
  "invalid_request",
  "missing_credentials",
  "model_not_found",
  "provider_unavailable",
  "rate_limit",
  "storage",
  "timeout",
  "unknown",
  "unsupported_capability",
] as const;
export type UnavailableReason = typeof UNAVAILABLE_REASONS[number];

export interface UnavailableEntry {
  provider: string;
  reason: UnavailableReason;
  message?: string;
}
