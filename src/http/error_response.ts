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
  // Never answered natively (a native turn cut by a break answers `idle`): its native meaning.
  turn_interrupted: 409,
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
 * The status each compatible surface answers a code with (decisions.md §12):
 * `[OpenAI's, Anthropic's]`, the closest status each API documents, so each
 * SDK raises the class its users catch. Invalid input is 400 on both; an
 * overload is Anthropic's 529. Every code has an entry, as above.
 */
export const SURFACE_HTTP_STATUS: Record<ErrorCode, readonly [openai: number, anthropic: number]> =
  {
    invalid_request: [400, 400],
    not_found: [404, 404],
    method_not_allowed: [405, 405],
    payload_too_large: [413, 413],
    credentials_in_query: [400, 400],
    invalid_session_id: [400, 400],
    missing_credentials: [401, 401],
    invalid_api_key: [401, 401],
    invalid_token: [401, 401],
    token_expired: [401, 401],
    token_revoked: [401, 401],
    forbidden: [403, 403],
    session_not_found: [404, 404],
    unknown_intent: [400, 400],
    unknown_effort: [400, 400],
    invalid_model_reference: [400, 400],
    invalid_provider_name: [400, 400],
    unknown_provider: [400, 400],
    unknown_model: [400, 400],
    permission_expansion: [400, 400],
    no_route: [400, 400],
    context_window_exceeded: [400, 400],
    routing_unsupported_capability: [400, 400],
    missing_capability: [400, 400],
    override_not_allowed: [403, 403],
    fallback_exhausted: [503, 529],
    // A provider key is a header the client sends: missing, the request lacks it; refused, it is a bad key.
    missing_provider_credentials: [400, 400],
    // Never reached: a compatible request whose session has a turn in flight forks (§12). Neither
    // API has the state, and a 409 is retried by both SDKs: no code is 409 on these surfaces.
    run_in_flight: [400, 400],
    no_active_run: [400, 400],
    continuation_mismatch: [400, 400],
    approval_required: [403, 403],
    budget_exceeded: [429, 429],
    // The user's own act (a native break or inject): a retry would only run the turn again.
    turn_interrupted: [400, 400],
    context_length_exceeded: [400, 400],
    invalid_provider_configuration: [500, 500],
    invalid_provider_credentials: [401, 401],
    model_not_found: [404, 404],
    provider_authentication: [401, 401],
    provider_error: [500, 500],
    provider_unavailable: [503, 529],
    provider_unsupported_capability: [400, 400],
    rate_limited: [429, 429],
    request_timeout: [504, 504],
    storage_error: [500, 500],
    shutting_down: [503, 529],
    not_implemented: [404, 404],
    internal_error: [500, 500],
  };

/** Each surface's error `type` for a status it answers with; a status not listed is its 4xx/5xx default. */
export const SURFACE_ERROR_TYPE = {
  openai: {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    405: "invalid_request_error",
    413: "invalid_request_error",
    429: "rate_limit_error",
    client: "invalid_request_error",
    server: "server_error",
  },
  anthropic: {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
    client: "invalid_request_error",
    server: "api_error",
  },
} as const satisfies Record<string, Record<number | "client" | "server", string>>;

export type CompatSurface = keyof typeof SURFACE_ERROR_TYPE;

/** A failure as a compatible surface answers it: its status and its error type. */
export function surfaceError(
  surface: CompatSurface,
  code: ErrorCode,
): { status: number; type: string } {
  const status = SURFACE_HTTP_STATUS[code][surface === "openai" ? 0 : 1];
  const types: Partial<Record<number | "client" | "server", string>> = SURFACE_ERROR_TYPE[surface];
  return { status, type: types[status] ?? types[status >= 500 ? "server" : "client"]! };
}

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
