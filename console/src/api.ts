/**
 * The console's only way to the service: the public `/api/v1`, typed from the OpenAPI document
 * (`api_schema.gen.ts`), with the session token in `sessionStorage` (gone when the tab closes)
 * and provider keys in memory only, sent on the requests that may need them.
 */
import type { components, paths } from "./api_schema.gen.ts";

export type Schemas = components["schemas"];

type Method = "get" | "post" | "put" | "delete";
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type JsonOf<R> = R extends { content: { "application/json": infer B } } ? B : never;
/** The body of the operation's success answer (200 or 201). */
export type Answer<P extends keyof paths, M extends Method> = Operation<P, M> extends
  { responses: infer R } ? R extends { 200: infer OK } ? JsonOf<OK>
  : R extends { 201: infer Created } ? JsonOf<Created>
  : never
  : never;
type BodyOf<P extends keyof paths, M extends Method> = Operation<P, M> extends
  { requestBody?: { content: { "application/json": infer B } } } ? B : never;

const TOKEN_KEY = "switchyard.token";

export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

/** Provider keys typed into the page: kept in memory for its own requests, never stored. */
export const providerKeys = new Map<string, string>();

export function token(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

/** Called when the token stops working, so the page can ask to sign in again. */
let onSignedOut: (why: string) => void = () => {};
export function whenSignedOut(handler: (why: string) => void): void {
  onSignedOut = handler;
}

function providerHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [provider, key] of providerKeys) {
    if (key !== "") headers[`x-router-provider-${provider}-api-key`] = key;
  }
  return headers;
}

export interface CallOptions<P extends keyof paths, M extends Method> {
  params?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
  body?: BodyOf<P, M>;
  /** Send the provider keys typed into the page. */
  withProviderKeys?: boolean;
  headers?: Record<string, string>;
}

export async function api<P extends keyof paths, M extends Method>(
  method: M,
  path: P,
  options: CallOptions<P, M> = {},
): Promise<Answer<P, M>> {
  let url = String(path).replace(
    /\{(\w+)\}/g,
    (_, name) => encodeURIComponent(options.params![name]),
  );
  const query = Object.entries(options.query ?? {}).filter(([, v]) => v !== undefined && v !== "");
  if (query.length > 0) url += "?" + new URLSearchParams(query.map(([k, v]) => [k, String(v)]));
  const headers: Record<string, string> = {
    ...(options.withProviderKeys ? providerHeaders() : {}),
    ...options.headers,
  };
  const bearer = token();
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(url, {
    method: method.toUpperCase(),
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  const body = text === "" ? null : JSON.parse(text);
  if (!response.ok) {
    const code = body?.error?.code ?? "unknown";
    const message = body?.error?.message ?? `HTTP ${response.status}`;
    if (response.status === 401 && bearer && !String(path).startsWith("/api/v1/auth/sign-")) {
      sessionStorage.removeItem(TOKEN_KEY);
      onSignedOut(message);
    }
    throw new ApiError(response.status, code, message);
  }
  return body as Answer<P, M>;
}

export async function signIn(apiKey: string): Promise<void> {
  const answer = await api("post", "/api/v1/auth/sign-in", {
    headers: { "x-router-api-key": apiKey },
  });
  sessionStorage.setItem(TOKEN_KEY, answer.token);
}

/** Revokes the token on the service, then forgets it (and the provider keys) here. */
export async function signOut(): Promise<void> {
  try {
    await api("post", "/api/v1/auth/sign-out");
  } finally {
    sessionStorage.removeItem(TOKEN_KEY);
    providerKeys.clear();
  }
}

/** The message of an error, for a status line. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return `${error.message} (${error.code})`;
  return error instanceof Error ? error.message : String(error);
}
