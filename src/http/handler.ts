import { type Failure, failure, isStorageError, ServiceError } from "../core/errors.ts";
import { isUuid } from "../core/credential_format.ts";
import {
  authenticate,
  authenticateKeyOrToken,
  authenticateOperator,
  invalidApiKey,
  rememberedKey,
  rememberedToken,
} from "./auth.ts";
import { UnreadableBody } from "./body.ts";
import { clientAddress, type Connection } from "./client_address.ts";
import { type Deps, type Endpoint, KeyRefused, type Principal } from "./context.ts";
import { corsFor } from "./cors.ts";
import { errorResponse } from "./error_response.ts";
import { credentialInQuery } from "./query_credentials.ts";
import { createRequestLimits } from "./rate_limits.ts";
import { tokenMemo } from "./token_memo.ts";
import { compileRoutes, type Params, type Route } from "./router.ts";
import { unstorableInQuery } from "./unstorable_text.ts";
import { NO_TELEMETRY, type RequestProbe } from "../telemetry/telemetry.ts";
import { type PhaseClock, phaseClock } from "../telemetry/phase_clock.ts";
import { entered, ENTRY } from "../engine/entry_queue.ts";
import { ROUTES } from "./routes.ts";
import { RecordedTurnFailure } from "../engine/recorded_failure.ts";
import { anthropicError } from "../surfaces/anthropic_answer.ts";
import { openAiError } from "../surfaces/openai_answer.ts";

const ADMIN_PREFIX = "/api/v1/admin/";

export type Handler = (request: Request, connection?: Connection) => Promise<Response>;

/** The whole service as one web-standard handler. */
export function createHandler(deps: Deps, routes: readonly Route<Endpoint>[] = ROUTES): Handler {
  const match = compileRoutes(routes);
  const limits = createRequestLimits(deps.config.limits.rate);
  const cors = corsFor(deps.config.http.corsOrigins);
  const telemetry = deps.telemetry ?? NO_TELEMETRY;
  const memo = tokenMemo();

  /** Checks the caller against its limits and authenticates it: a 429 when over a limit. */
  async function admit(
    request: Request,
    endpoint: Endpoint,
    params: Params,
    address: string | null,
  ): Promise<Principal | Response> {
    const now = deps.now().getTime();
    if (endpoint.auth === "none") {
      return (endpoint.limitByAddress && limits.byAddress(address, now)) ||
        { userId: "", tokenId: "" };
    }
    const sessionId = sessionOf(params);
    // A turn with a token this instance knows is checked by its claim: nothing is read first.
    const token = endpoint.claimChecksToken && sessionId !== undefined &&
        !memo.isSealed(sessionId)
      ? rememberedToken(request, memo, now)
      : null;
    // So is a compatible turn with an API key this instance knows, by its one read.
    const key = endpoint.readChecksKey
      ? rememberedKey(request, memo, endpoint.apiKeyHeader === true)
      : null;
    const principal = token !== null
      ? { userId: token.userId, tokenId: token.tokenId, unchecked: { token, checked: false } }
      : key !== null
      ? { userId: key.userId, tokenId: "", uncheckedKey: { digest: key.digest, checked: false } }
      : await authenticated(request, endpoint, sessionId, address, now);
    if (principal instanceof Response || endpoint.auth === "operator") return principal;
    return limits.byUser(principal.userId, now) ?? principal;
  }

  /** The path's session id, when it is a well-formed one. */
  function sessionOf(params: Params): string | undefined {
    const id = params.session_id;
    return id !== undefined && isUuid(id) ? id.toLowerCase() : undefined;
  }

  /** Authenticates a user's request (its token read): a 429 when a wrong one was tried too often. */
  async function authenticated(
    request: Request,
    endpoint: Endpoint,
    sessionId: string | undefined,
    address: string | null,
    now: number,
  ): Promise<Principal | Response> {
    let principal: Principal;
    try {
      if (endpoint.auth === "operator") return authenticateOperator(request, deps);
      // A request on a session reads the session with the token, in one round trip.
      principal = endpoint.auth === "key_or_token"
        ? await authenticateKeyOrToken(request, deps, {
          apiKeyHeader: endpoint.apiKeyHeader,
          memo,
        })
        : await authenticate(request, deps, sessionId, {
          reading: endpoint.readsTurn === true,
          memo,
        });
    } catch (error) {
      // A wrong token or key costs its address a token, so neither can be guessed at full speed.
      const code = error instanceof ServiceError ? error.failure.code : null;
      if (code === "invalid_token" || code === "invalid_api_key") {
        const tooMany = limits.byAddress(address, now);
        if (tooMany !== null) return tooMany;
      }
      throw error;
    }
    const session = principal.session;
    if (session != null && session.key_id !== null) memo.markSealed(session.id);
    return principal;
  }

  /**
   * `RequestContext.confirm` of a request whose token was not read: the token
   * and session read as for any request (its user was already counted), the
   * token forgotten when it no longer holds.
   */
  function confirmer(request: Request, endpoint: Endpoint, params: Params, address: string | null) {
    return async (): Promise<Principal | Response> => {
      const now = deps.now().getTime();
      try {
        return await authenticated(request, endpoint, sessionOf(params), address, now);
      } catch (error) {
        const presented = rememberedToken(request, memo, now);
        if (presented !== null) memo.forget(presented.tokenId);
        const key = rememberedKey(request, memo, endpoint.apiKeyHeader === true);
        if (key !== null) memo.forgetKey(key.whole);
        throw error;
      }
    };
  }

  /** The route a request names; the operator's paths do not exist without an operator token. */
  function lookup(request: Request, url: URL) {
    const hidden = deps.config.auth.operatorToken === undefined &&
      url.pathname.startsWith(ADMIN_PREFIX);
    return hidden ? { kind: "not_found" as const } : match(request.method, url.pathname);
  }

  async function route(
    request: Request,
    url: URL,
    probe: RequestProbe,
    timing: PhaseClock,
    connection?: Connection,
  ): Promise<Response> {
    const found = lookup(request, url);
    const render = compatErrorShape(request, url, found);
    if (render === null) return await dispatch(request, url, probe, found, timing, connection);
    // Every answer under /v1/, errors included, in the shape and status of the API asked.
    const requestId = `req_${crypto.randomUUID().replaceAll("-", "")}`;
    let response: Response;
    try {
      response = await dispatch(request, url, probe, found, timing, connection);
    } catch (error) {
      response = toErrorResponse(error, deps, probe);
    }
    if (response.status >= 400) {
      const rendered = render(await failureOf(response), response.status, requestId);
      for (const name of KEPT_ON_ERRORS) {
        const value = response.headers.get(name);
        if (value !== null) rendered.headers.set(name, value);
      }
      response = rendered;
    }
    response.headers.set(requestIdHeader(render), requestId);
    return response;
  }

  async function dispatch(
    request: Request,
    url: URL,
    probe: RequestProbe,
    found: ReturnType<typeof lookup>,
    timing: PhaseClock,
    connection?: Connection,
  ): Promise<Response> {
    const queryCredential = credentialInQuery(url);
    if (queryCredential !== null) {
      throw ServiceError.of(
        "credentials_in_query",
        `credentials are not accepted in query parameters: remove "${queryCredential}" and send it in a header`,
      );
    }
    if (found.kind === "not_found") {
      throw ServiceError.of("not_found", `no such endpoint: ${url.pathname}`);
    }
    if (found.kind === "method_not_allowed") {
      probe.route = found.path;
      probe.code = "method_not_allowed";
      return errorResponse(
        failure(
          "method_not_allowed",
          `method ${request.method} not allowed: use ${found.allow.join(", ")}`,
        ),
        { headers: { allow: found.allow.join(", ") } },
      );
    }
    probe.route = found.path;
    return await admitted(request, url, found.handler, found.params, timing, connection);
  }

  async function admitted(
    request: Request,
    url: URL,
    endpoint: Endpoint,
    params: Params,
    timing: PhaseClock,
    connection?: Connection,
  ): Promise<Response> {
    const address = clientAddress(request, connection, deps.config.limits.rate.trustForwardedFor);
    // Under a burst, requests enter within the loop's time for starts: running streams go first.
    await entered(timing);
    let principal: Principal | Response;
    try {
      principal = await admit(request, endpoint, params, address);
    } finally {
      if (endpoint.auth !== "none") timing.lap("auth");
    }
    if (principal instanceof Response) return principal;
    const confirm = principal.unchecked === undefined && principal.uncheckedKey === undefined
      ? undefined
      : confirmer(request, endpoint, params, address);
    const unstorable = unstorableInQuery(url);
    if (unstorable !== null) {
      // Told only to a caller whose token holds, as when it was read first.
      const confirmed = await confirm?.();
      if (confirmed instanceof Response) return confirmed;
      return errorResponse(unstorable, { status: 400 });
    }
    const ctx = { request, url, params, deps, principal, address, timing };
    const check = principal.uncheckedKey;
    if (check === undefined || confirm === undefined) {
      return await endpoint.handle(confirm === undefined ? ctx : { ...ctx, confirm });
    }
    // The key is checked by the turn's read: what failed before it, and a key the read
    // refused, is answered as if the key had been read first.
    let response: Response;
    try {
      response = await endpoint.handle({ ...ctx, confirm });
    } catch (error) {
      if (check.checked && !(error instanceof KeyRefused)) throw error;
      // The store did not answer: reading the key again would wait a second deadline.
      if (isStorageError(error)) throw error;
      const confirmed = await confirm();
      if (confirmed instanceof Response) return confirmed;
      throw error instanceof KeyRefused ? invalidApiKey() : error;
    }
    if (check.checked) return response;
    const confirmed = await confirm();
    return confirmed instanceof Response ? confirmed : response;
  }

  return async (request, connection) => {
    const started = performance.now();
    const url = new URL(request.url);
    const probe = telemetry.request(request);
    const timing = phaseClock(started);
    let response: Response;
    ENTRY.begin();
    try {
      response = cors.preflight(request) ??
        await probe.within(() => route(request, url, probe, timing, connection));
    } catch (error) {
      response = toErrorResponse(error, deps, probe);
    } finally {
      ENTRY.end();
    }
    response = cors.decorate(request, response);
    // Path only: the query string may carry what a client should not have sent.
    deps.logger.info("request", {
      method: request.method,
      path: url.pathname,
      status: response.status,
      ...requestIdOf(response),
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
    });
    response = probe.end(request.method, response);
    // Last, so the answer's phase holds the request's log line and metrics too.
    timing.answered();
    serverTiming(response, timing);
    return response;
  };
}

/** The phases the request went through before its answer's headers (none: no header). */
function serverTiming(response: Response, timing: PhaseClock): void {
  const value = timing.header();
  if (value === null) return;
  try {
    response.headers.set("server-timing", value);
  } catch {
    // A response whose headers cannot change (none the service makes) goes out without it.
  }
}

/** A compatible answer's request id, for the log line a client's report can be matched to. */
function requestIdOf(response: Response): { request_id?: string } {
  const id = response.headers.get("x-request-id") ?? response.headers.get("request-id");
  return id === null ? {} : { request_id: id };
}

type ErrorShape = NonNullable<Endpoint["renderError"]>;

/** What a native error answer carries that its compatible rendering keeps. */
const KEPT_ON_ERRORS = ["retry-after", "allow", "x-router-session-id", "x-router-trace-id"];

/**
 * How errors are written for a request under `/v1/` (decisions.md §12): its
 * endpoint's own shape; else (an unknown path or method, `/v1/models`)
 * Anthropic's when the request carries `anthropic-version`, OpenAI's
 * otherwise. Null elsewhere: the native envelope.
 */
function compatErrorShape(
  request: Request,
  url: URL,
  found: { kind: string; handler?: Endpoint },
): ErrorShape | null {
  if (url.pathname !== "/v1" && !url.pathname.startsWith("/v1/")) return null;
  if (found.kind === "found" && found.handler?.renderError !== undefined) {
    return found.handler.renderError;
  }
  return request.headers.has("anthropic-version") ? anthropicError : openAiError;
}

/** Each API's own request id header: Anthropic's `request-id`, OpenAI's `x-request-id`. */
function requestIdHeader(render: ErrorShape): string {
  return render === anthropicError ? "request-id" : "x-request-id";
}

/** The failure a native error response carries, for an endpoint that answers in another shape. */
async function failureOf(response: Response): Promise<Failure> {
  const body = await response.json() as { error: Failure };
  return body.error;
}

function toErrorResponse(error: unknown, deps: Deps, probe: RequestProbe): Response {
  if (error instanceof RecordedTurnFailure) {
    probe.code = error.failure.code;
    return errorResponse(error.failure, { headers: error.headers });
  }
  if (error instanceof ServiceError) {
    probe.code = error.failure.code;
    return errorResponse(error.failure);
  }
  if (error instanceof UnreadableBody) {
    probe.code = error.failure.code;
    return errorResponse(error.failure, { status: error.status });
  }
  probe.code = "internal_error";
  // A bug or an outage: log what kind, never the error's text (it may quote SQL parameters).
  deps.logger.error("unhandled error", {
    error: error instanceof Error ? error.name : typeof error,
    code: (error as { code?: unknown })?.code,
  });
  return errorResponse(failure("internal_error", "internal error"));
}
