import type { ErrorCode } from "../core/errors.ts";
import type { UnavailableReason } from "../core/model.ts";

/**
 * Categories of provider failure (decisions.md §11). Every adapter and listing
 * turns an HTTP status or transport failure into one of these; the mapping to
 * the service's error codes is below and nowhere else.
 */
export type ProviderErrorCategory =
  | "invalid_request"
  | "invalid_credentials"
  | "authentication"
  | "model_not_found"
  | "timeout"
  | "rate_limit"
  | "provider_unavailable"
  | "context_length"
  | "unsupported_capability"
  | "missing_credentials"
  | "unknown";

export function categoriseStatus(status: number): ProviderErrorCategory {
  if (status === 400) return "invalid_request";
  if (status === 401) return "invalid_credentials";
  if (status === 403) return "authentication";
  if (status === 404) return "model_not_found";
  if (status === 408 || status === 504) return "timeout";
  if (status === 429) return "rate_limit";
  if (status >= 500 && status <= 599) return "provider_unavailable";
  return "unknown";
}

const CODE_OF_CATEGORY: Record<ProviderErrorCategory, ErrorCode> = {
  invalid_request: "invalid_request",
  invalid_credentials: "invalid_provider_credentials",
  authentication: "provider_authentication",
  model_not_found: "model_not_found",
  timeout: "request_timeout",
  rate_limit: "rate_limited",
  provider_unavailable: "provider_unavailable",
  context_length: "context_length_exceeded",
  unsupported_capability: "provider_unsupported_capability",
  missing_credentials: "missing_provider_credentials",
  unknown: "provider_error",
};

export function errorCodeOf(category: ProviderErrorCategory): ErrorCode {
  return CODE_OF_CATEGORY[category];
}

/** The `reason` of an `unavailable` entry on the models endpoint. */
export function unavailableReasonOf(category: ProviderErrorCategory): UnavailableReason {
  return category === "rate_limit" ? "rate_limit" : category;
}

/** Categories after which the run engine moves on to the next candidate (decisions.md §7). */
export function allowsFallback(category: ProviderErrorCategory): boolean {
  return category === "provider_unavailable" || category === "rate_limit" ||
    category === "timeout" || category === "unknown";
}

/**
 * A categorised provider failure. `message` is safe to show: it never holds a
 * credential or a request body, and `status` is the provider's HTTP status when
 * there was one.
 */
export class ProviderError extends Error {
  override readonly name = "ProviderError";
  constructor(
    readonly category: ProviderErrorCategory,
    message: string,
    readonly provider: string,
    readonly status?: number,
  ) {
    super(message);
  }
  get code(): ErrorCode {
    return errorCodeOf(this.category);
  }
}
