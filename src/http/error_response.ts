import type { ErrorCode, Failure } from "../core/errors.ts";

/** The single mapping from error code to HTTP status. */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  invalid_request: 422,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  credentials_in_query: 400,
  invalid_session_id: 400,
  missing_credentials: 401,
  invalid_api_key: 401,
  invalid_token: 401,
  token_expired: 401,
  token_revoked: 401,
  forbidden: 403,
  session_not_found: 404,
  unknown_intent: 422,
  unknown_effort: 422,
  invalid_model_reference: 422,
  invalid_provider_name: 422,
  unknown_provider: 422,
  unknown_model: 422,
  permission_expansion: 422,
  no_route: 422,
  context_window_exceeded: 422,
  routing_unsupported_capability: 422,
  missing_capability: 422,
  override_not_allowed: 403,
  fallback_exhausted: 503,
  missing_provider_credentials: 503,
  run_in_flight: 409,
  no_active_run: 422,
  continuation_mismatch: 422,
  approval_required: 403,
  budget_exceeded: 429,
  context_length_exceeded: 422,
  invalid_provider_configuration: 500,
  invalid_provider_credentials: 503,
  model_not_found: 404,
  provider_authentication: 503,
  provider_error: 502,
  provider_unavailable: 503,
  provider_unsupported_capability: 422,
  rate_limited: 429,
  request_timeout: 504,
  storage_error: 502,
  shutting_down: 503,
  not_implemented: 501,
  internal_error: 500,
};

/**
 * `invalid_request` is 422 for a body that parses but fails validation, and 400
 * for one that does not parse at all (decisions.md §2): the caller says which.
 */
export function errorResponse(
  failure: Failure,
  options: { status?: number; headers?: HeadersInit } = {},
): Response {
  const status = options.status ?? HTTP_STATUS[failure.code];
  const error = failure.details === undefined
    ? { code: failure.code, message: failure.message }
    : { code: failure.code, message: failure.message, details: failure.details };
  const headers = new Headers(options.headers);
  if (failure.retryAfterSeconds !== undefined) {
    headers.set("retry-after", String(failure.retryAfterSeconds));
  }
  headers.set("content-type", "application/json");
  return new Response(JSON.stringify({ error }), { status, headers });
}

export function jsonResponse(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/** A body already written as JSON text (by the store), sent as it is. */
export function jsonTextResponse(json: string, status = 200): Response {
  return new Response(json, { status, headers: { "content-type": "application/json" } });
}
