import { failure, ServiceError } from "../core/errors.ts";
import { isUuid } from "../core/credential_format.ts";
import { authenticate } from "./auth.ts";
import { UnreadableBody } from "./body.ts";
import type { Deps, Endpoint, Principal } from "./context.ts";
import { errorResponse } from "./error_response.ts";
import { credentialInQuery } from "./query_credentials.ts";
import { compileRoutes, type Route } from "./router.ts";
import { NO_TELEMETRY, type RequestProbe } from "../telemetry/telemetry.ts";
import { ROUTES } from "./routes.ts";

export type Handler = (request: Request) => Promise<Response>;

/** The whole service as one web-standard handler. */
export function createHandler(deps: Deps, routes: readonly Route<Endpoint>[] = ROUTES): Handler {
  const match = compileRoutes(routes);
  const telemetry = deps.telemetry ?? NO_TELEMETRY;

  async function route(request: Request, url: URL, probe: RequestProbe): Promise<Response> {
    const queryCredential = credentialInQuery(url);
    if (queryCredential !== null) {
      throw ServiceError.of(
        "credentials_in_query",
        `credentials are not accepted in query parameters: remove "${queryCredential}" and send it in a header`,
      );
    }
    const found = match(request.method, url.pathname);
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
    const endpoint = found.handler;
    const sessionId = found.params.session_id;
    const principal: Principal = endpoint.auth === "bearer"
      ? await authenticate(
        request,
        deps,
        sessionId !== undefined && isUuid(sessionId) ? sessionId.toLowerCase() : undefined,
      )
      : { userId: "", tokenId: "" };
    return await endpoint.handle({ request, url, params: found.params, deps, principal });
  }

  return async (request) => {
    const started = performance.now();
    const url = new URL(request.url);
    const probe = telemetry.request(request);
    let response: Response;
    try {
      response = await probe.within(() => route(request, url, probe));
    } catch (error) {
      response = toErrorResponse(error, deps, probe);
    }
    // Path only: the query string may carry what a client should not have sent.
    deps.logger.info("request", {
      method: request.method,
      path: url.pathname,
      status: response.status,
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
    });
    return probe.end(request.method, response);
  };
}

function toErrorResponse(error: unknown, deps: Deps, probe: RequestProbe): Response {
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
