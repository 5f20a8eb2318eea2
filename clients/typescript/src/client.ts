/**
 * The Switchyard client: auth, sessions, named policies, providers and models over the
 * service's public API, with types generated from its OpenAPI document.
 *
 *   const client = createClient({ baseUrl: "http://127.0.0.1:7331", apiKey });
 *   await client.auth.signIn();
 *   const { id } = await client.sessions.create({ title: "docs" });
 *   const result = await client.session(id).run("summarise README.md", { policy, onToolCall });
 */
import { type KeysApi, keysApi } from "./keys.ts";
import { type Session, sessionHandle } from "./session.ts";
import type { SessionKey } from "./session_key.ts";
import { createTransport, type TransportOptions } from "./transport.ts";
import type {
  BootstrapResponse,
  CreateSessionRequest,
  ModelListResponse,
  NamedPolicy,
  PeriodUsageReport,
  Policy,
  PolicyVersionSummary,
  ProviderDescriptor,
  SessionSummary,
  SignInResponse,
} from "./types.ts";

export type ClientOptions = TransportOptions;

export interface SwitchyardClient {
  auth: {
    /** Creates a user; the API key it answers is kept for sign-in. */
    bootstrap(): Promise<BootstrapResponse>;
    /** Exchanges the API key for a session token and keeps it. */
    signIn(): Promise<SignInResponse>;
    signOut(): Promise<void>;
    me(): Promise<{ user_id: string }>;
    /** The credentials held now (to save them). */
    credentials(): { token?: string; apiKey?: string };
  };
  /** The caller's API keys: create (the plaintext shown once), list, revoke. */
  keys: KeysApi;
  sessions: {
    /** Give `key` to create an encrypted session under its `keyId`. */
    create(body: CreateSessionRequest, options?: { key?: SessionKey }): Promise<SessionSummary>;
    list(filter?: { scope?: string; title?: string }): Promise<SessionSummary[]>;
  };
  /** The caller's named policies: each store of a name is a new immutable version of it. */
  policies: {
    /** Stores `policy` as the next version of `name`; answers the version made. */
    put(name: string, policy: Policy): Promise<NamedPolicy>;
    /** Each name with its latest version, sorted by name. */
    list(): Promise<PolicyVersionSummary[]>;
    /** The latest version, or version `version`; an unknown one throws `not_found`. */
    get(name: string, version?: number): Promise<NamedPolicy>;
    /** Removes the name and all its versions. */
    delete(name: string): Promise<void>;
  };
  /**
   * The caller's usage across sessions between two UTC dates `YYYY-MM-DD`
   * (inclusive; default: this UTC month), by day and by model, with the budget
   * and what is left of it.
   */
  usage(period?: { from?: string; to?: string }): Promise<PeriodUsageReport>;
  /** A handle on one session; give the key of an encrypted one. */
  session(id: string, options?: { key?: SessionKey }): Session;
  providers(): Promise<ProviderDescriptor[]>;
  /** Models every provider lists for this client's provider keys. */
  models(options?: { timeoutMs?: number }): Promise<ModelListResponse>;
  status(): Promise<{ status: "ok"; version: string }>;
}

export function createClient(options: ClientOptions): SwitchyardClient {
  const transport = createTransport(options);
  const state = transport.options;
  return {
    auth: {
      async bootstrap() {
        const boot = await transport.json<BootstrapResponse>({
          method: "POST",
          path: "/api/v1/auth/bootstrap",
          auth: "none",
        });
        state.apiKey = boot.api_key;
        return boot;
      },
      signIn: () => transport.signIn(),
      async signOut() {
        await transport.json({ method: "POST", path: "/api/v1/auth/sign-out", auth: "bearer" });
        state.token = undefined;
      },
      me: () => transport.json({ method: "GET", path: "/api/v1/auth/me", auth: "bearer" }),
      credentials: () => ({ token: state.token, apiKey: state.apiKey }),
    },
    keys: keysApi(transport),
    sessions: {
      async create(body, { key } = {}) {
        const request = key ? { ...body, key_id: key.keyId } : body;
        const created = await transport.json<{ session: SessionSummary }>({
          method: "POST",
          path: "/api/v1/sessions",
          body: request,
          auth: "bearer",
        });
        return created.session;
      },
      async list(filter = {}) {
        const listed = await transport.json<{ sessions: SessionSummary[] }>({
          method: "GET",
          path: "/api/v1/sessions",
          query: filter,
          auth: "bearer",
        });
        return listed.sessions;
      },
    },
    policies: {
      put: (name, policy) =>
        transport.json({
          method: "PUT",
          path: `/api/v1/policies/${encodeURIComponent(name)}`,
          body: policy,
          auth: "bearer",
        }),
      async list() {
        const listed = await transport.json<{ policies: PolicyVersionSummary[] }>({
          method: "GET",
          path: "/api/v1/policies",
          auth: "bearer",
        });
        return listed.policies;
      },
      get: (name, version) =>
        transport.json({
          method: "GET",
          path: `/api/v1/policies/${encodeURIComponent(name)}${
            version === undefined ? "" : `/versions/${version}`
          }`,
          auth: "bearer",
        }),
      async delete(name) {
        await transport.json({
          method: "DELETE",
          path: `/api/v1/policies/${encodeURIComponent(name)}`,
          auth: "bearer",
        });
      },
    },
    usage({ from, to } = {}) {
      const query = new URLSearchParams();
      if (from !== undefined) query.set("from", from);
      if (to !== undefined) query.set("to", to);
      const q = query.toString();
      return transport.json({
        method: "GET",
        path: `/api/v1/usage${q === "" ? "" : `?${q}`}`,
        auth: "bearer",
      });
    },
    session: (id, { key } = {}) => sessionHandle(transport, id, key),
    async providers() {
      const listed = await transport.json<{ providers: ProviderDescriptor[] }>({
        method: "GET",
        path: "/api/v1/llm/providers",
        auth: "bearer",
      });
      return listed.providers;
    },
    models: ({ timeoutMs } = {}) =>
      transport.json({
        method: "GET",
        path: "/api/v1/llm/models",
        auth: "bearer",
        providerKeys: true,
        headers: timeoutMs === undefined ? {} : { "x-router-timeout-ms": String(timeoutMs) },
      }),
    status: () => transport.json({ method: "GET", path: "/status", auth: "none" }),
  };
}
