/**
 * The closed set of error codes the service answers with. Core functions return
 * these as values (`Failure`); the single mapping to HTTP status lives in
 * `http/error_response.ts`, so adding a code here forces a status there.
 */
export const ERROR_CODES = [
  // request shape and transport
  "invalid_request",
  "not_found",
  "method_not_allowed",
  "payload_too_large",
  "credentials_in_query",
  "invalid_session_id",
  // authentication and ownership
  "missing_credentials",
  "invalid_api_key",
  "invalid_token",
  "token_expired",
  "token_revoked",
  "forbidden",
  "session_not_found",
  // policy and routing validation
  "unknown_intent",
  "unknown_effort",
  "invalid_model_reference",
  "invalid_provider_name",
  "unknown_provider",
  "unknown_model",
  "permission_expansion",
  "no_route",
  "context_window_exceeded",
  "routing_unsupported_capability",
  "missing_capability",
  "override_not_allowed",
  "fallback_exhausted",
  "missing_provider_credentials",
  // runs
  "run_in_flight",
  "no_active_run",
  "continuation_mismatch",
  "approval_required",
  "budget_exceeded",
  "turn_interrupted",
  // providers
  "context_length_exceeded",
  "invalid_provider_configuration",
  "invalid_provider_credentials",
  "model_not_found",
  "provider_authentication",
  "provider_error",
  "provider_unavailable",
  "provider_unsupported_capability",
  "rate_limited",
  "request_timeout",
  // service
  "storage_error",
  "shutting_down",
  "not_implemented",
  "internal_error",
] as const;

export type ErrorCode = typeof ERROR_CODES[number];

/** An expected failure, returned as a value. `details` must never hold a secret. */
export interface Failure {
  readonly code: ErrorCode;
  readonly message: string;
  readonly details?: Record<string, unknown>;
  /**
   * Seconds the client should wait before trying again, sent as `Retry-After`
   * by the one mapping to a response (http/error_response.ts); never in the body.
   */
  readonly retryAfterSeconds?: number;
}

export function failure(
  code: ErrorCode,
  message: string,
  details?: Record<string, unknown>,
): Failure {
  return details === undefined ? { code, message } : { code, message, details };
}

/** Result of a core decision: either a value or an expected failure. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; failure: Failure };

export const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });
export const fail = <T = never>(
  code: ErrorCode,
  message: string,
  details?: Record<string, unknown>,
): Outcome<T> => ({ ok: false, failure: failure(code, message, details) });

/**
 * Thrown at the I/O edges to carry a `Failure` up to the single HTTP mapping.
 * Core code returns `Outcome`s instead of throwing.
 */
export class ServiceError extends Error {
  override readonly name = "ServiceError";
  constructor(readonly failure: Failure) {
    super(failure.message);
  }
  static of(code: ErrorCode, message: string, details?: Record<string, unknown>): ServiceError {
    return new ServiceError(failure(code, message, details));
  }
}

/**
 * Whether the store refused or did not answer, as answered (`storage_error`;
 * the driver's raw faults are store/storage_fault.ts's): asking it again waits again.
 */
export function isStorageError(error: unknown): boolean {
  return error instanceof ServiceError && error.failure.code === "storage_error";
}
