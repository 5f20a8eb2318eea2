/**
 * One HTTP exchange with the service: base URL, credentials in headers (never
 * the query), errors turned into `SwitchyardError`, and one transparent
 * sign-in again when the token expired and the caller allowed it (and first,
 * when it holds an API key but no token yet).
 */
import { errorFromResponse, SwitchyardError } from "./errors.ts";
import type { SignInResponse } from "./types.ts";

export interface TransportOptions {
  /** Where the service answers, e.g. `http://127.0.0.1:7331`. */
  baseUrl: string;
  /** A session token from sign-in. */
  token?: string;
  /** The long-lived API key, used by sign-in (and by refresh). */
  apiKey?: string;
  /**
   * Sign in again with `apiKey` when a request answers 401 `token_expired`,
   * then repeat it once. Default: true when an API key is given.
   */
  refresh?: boolean;
  /** Told of every new token (sign-in, refresh), e.g. to save it. */
  onToken?: (token: SignInResponse) => void | Promise<void>;
  /** Provider id → key, sent as `X-Router-Provider-<Provider>-Api-Key` on turn requests. */
  providerKeys?: Record<string, string>;
  fetch?: typeof fetch;
}

export interface RequestSpec {
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  auth: "none" | "bearer" | "api_key";
  /** Send the provider credential headers. */
  providerKeys?: boolean;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface Transport {
  readonly options: TransportOptions;
  /** A 2xx response, or throws the service's error. */
  send(spec: RequestSpec): Promise<Response>;
  json<T>(spec: RequestSpec): Promise<T>;
  /** Exchanges the API key for a token and keeps it. */
  signIn(): Promise<SignInResponse>;
}

/** `openai-compat:<name>` sends under its instance name (interface.md). */
export function providerKeyHeader(provider: string): string {
  return `x-router-provider-${provider.replace(/^openai-compat:/, "")}-api-key`;
}

export function createTransport(given: TransportOptions): Transport {
  // A copy: the token it holds changes with every sign-in.
  const options = { ...given };
  // Called through a closure: a browser's fetch must not be called as a method of another object.
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const base = options.baseUrl.replace(/\/+$/, "");
  let signingIn: Promise<SignInResponse> | undefined;

  async function attempt(spec: RequestSpec): Promise<Response> {
    const url = new URL(base + spec.path);
    for (const [name, value] of Object.entries(spec.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers = new Headers(spec.headers);
    if (spec.auth === "bearer") {
      if (options.token === undefined) {
        throw new SwitchyardError("missing_credentials", "not signed in: no session token");
      }
      headers.set("authorization", `Bearer ${options.token}`);
    }
    if (spec.auth === "api_key") {
      if (options.apiKey === undefined) {
        throw new SwitchyardError("missing_credentials", "no API key to sign in with");
      }
      headers.set("x-router-api-key", options.apiKey);
    }
    if (spec.providerKeys) {
      for (const [provider, key] of Object.entries(options.providerKeys ?? {})) {
        headers.set(providerKeyHeader(provider), key);
      }
    }
    if (spec.body !== undefined) headers.set("content-type", "application/json");
    try {
      return await doFetch(url, {
        method: spec.method,
        headers,
        body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
        signal: spec.signal,
      });
    } catch (cause) {
      if (spec.signal?.aborted) throw cause;
      throw new SwitchyardError("network_error", `cannot reach ${base}: ${cause}`, 0, undefined, {
        cause,
      });
    }
  }

  const transport: Transport = {
    options,
    async send(spec) {
      const mayRefresh = options.refresh ?? options.apiKey !== undefined;
      // An API key and no token yet (a key from the environment): sign in first.
      if (spec.auth === "bearer" && options.token === undefined && mayRefresh) {
        await transport.signIn();
      }
      let response = await attempt(spec);
      if (response.ok) return response;
      let error = await errorFromResponse(response);
      if (error.code === "token_expired" && spec.auth === "bearer" && mayRefresh) {
        await transport.signIn();
        response = await attempt(spec);
        if (response.ok) return response;
        error = await errorFromResponse(response);
      }
      throw error;
    },
    async json<T>(spec: RequestSpec) {
      const response = await transport.send(spec);
      try {
        return await response.json() as T;
      } catch (cause) {
        throw new SwitchyardError("invalid_response", "the answer is not JSON", response.status, {
          path: spec.path,
        }, { cause });
      }
    },
    signIn() {
      // Requests that find the token expired together share one sign-in.
      signingIn ??= (async () => {
        try {
          const response = await attempt({
            method: "POST",
            path: "/api/v1/auth/sign-in",
            auth: "api_key",
          });
          if (!response.ok) throw await errorFromResponse(response);
          const signed = await response.json() as SignInResponse;
          options.token = signed.token;
          await options.onToken?.(signed);
          return signed;
        } finally {
          signingIn = undefined;
        }
      })();
      return signingIn;
    },
  };
  return transport;
}
