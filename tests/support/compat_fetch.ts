/**
 * The `fetch` the official SDKs are given in tests: the service's handler in
 * process, every answer checked against the OpenAPI document on the way (a
 * stream by its status and content type; its events by the SDK itself). The
 * body is read whole first, so the SDK gets a copy (streams end in tests).
 */
import type { TestApp } from "./app.ts";
import { assertResponseMatchesOpenApi } from "./openapi.ts";

export function checkedFetch(app: () => Pick<TestApp, "handler">) {
  return async (url: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(url, init);
    const response = await app().handler(request);
    const body = await response.arrayBuffer();
    const copy = () => new Response(body, { status: response.status, headers: response.headers });
    await assertResponseMatchesOpenApi(request.method, request.url, copy());
    return copy();
  };
}
