/**
 * Cross-origin access for browser clients (`router.http.cors_origins`). Only
 * the origins the operator listed get a preflight answer or any
 * `Access-Control-*` header; every other origin is served as if CORS did not
 * exist, so the browser keeps its same-origin rule. Credentials travel in
 * headers (bearer, API key, provider keys), never cookies, so credentialed
 * CORS is not needed.
 */

const ALLOWED_METHODS = "GET, POST, PUT, DELETE";
/** Response headers a client reads beyond the CORS-safelisted ones. */
const EXPOSED_HEADERS =
  "Retry-After, Allow, X-Router-Session-Id, X-Router-Trace-Id, X-Request-Id, Request-Id, Server-Timing";
/** How long a browser may reuse a preflight answer, in seconds. */
const PREFLIGHT_MAX_AGE = "600";

export interface Cors {
  /** The preflight answer for a listed origin, or null when this is not one. */
  preflight(request: Request): Response | null;
  /** `response` with the CORS headers added when the request's origin is listed. */
  decorate(request: Request, response: Response): Response;
}

export function corsFor(origins: readonly string[]): Cors {
  const listed = new Set(origins);
  const allowedOrigin = (request: Request): string | null => {
    const origin = request.headers.get("origin");
    return origin !== null && listed.has(origin) ? origin : null;
  };
  return {
    preflight(request) {
      const origin = allowedOrigin(request);
      const method = request.headers.get("access-control-request-method");
      if (request.method !== "OPTIONS" || origin === null || method === null) return null;
      const headers = new Headers({
        "access-control-allow-origin": origin,
        "access-control-allow-methods": ALLOWED_METHODS,
        "access-control-max-age": PREFLIGHT_MAX_AGE,
        vary: "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
      });
      // Provider key headers are named per provider, so the requested names are echoed.
      const requested = request.headers.get("access-control-request-headers");
      if (requested) headers.set("access-control-allow-headers", requested);
      return new Response(null, { status: 204, headers });
    },
    decorate(request, response) {
      if (listed.size === 0) return response;
      const origin = allowedOrigin(request);
      const headers = new Headers(response.headers);
      headers.append("vary", "Origin");
      if (origin !== null) {
        headers.set("access-control-allow-origin", origin);
        headers.set("access-control-expose-headers", EXPOSED_HEADERS);
        // The browser's Performance API shows a listed origin the answer's Server-Timing phases.
        headers.set("timing-allow-origin", origin);
      }
      return new Response(response.body, {
        status: response.status,
        statusText: response.statusText,
        headers,
      });
    },
  };
}
