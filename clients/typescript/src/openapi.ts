// Generated from src/http/openapi.json by clients/typescript/scripts/openapi_types.ts.
// Do not edit: run `deno task client:types` instead.

export type paths = {
    "/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Health and running version */
        get: operations["getStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This OpenAPI document */
        get: operations["getOpenApi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/bootstrap": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a user and issue a long-lived API key
         * @description No request body. 403 `forbidden` when `router.auth.bootstrap_enabled` is false.
         */
        post: operations["bootstrap"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/sign-in": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Exchange the API key for a session token
         * @description No request body. Every key failure answers 401 `invalid_api_key` alike.
         */
        post: operations["signIn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/sign-out": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Revoke the current token */
        post: operations["signOut"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Current user id */
        get: operations["me"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the caller's API keys (never a secret) */
        get: operations["listApiKeys"];
        put?: never;
        /**
         * Create an API key
         * @description The plaintext key appears only in this answer. A user holds at most 100 keys that are not revoked (more: 422 `invalid_request`). `expires_at` must be in the future; absent or null, the key never expires. A token signed in with a key expires no later than the key.
         */
        post: operations["createApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/keys/{key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description An id from the keys list; any other (another user's, not a UUID): 404 `not_found`. */
                key_id: components["parameters"]["KeyId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an API key and every token signed in with it
         * @description From then on the key answers 401 `invalid_api_key` and its tokens 401 `token_revoked`, on every instance. Revoking a revoked key answers the same and keeps the first `revoked_at`.
         */
        delete: operations["revokeApiKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List every user with its budget and spend */
        get: operations["adminListUsers"];
        put?: never;
        /** Add a user with its first API key */
        post: operations["adminAddUser"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/users/{user_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id; an unknown one (or not a UUID): 404 `not_found`. */
                user_id: components["parameters"]["UserId"];
            };
            cookie?: never;
        };
        get?: never;
        /**
         * Rename, disable, enable or budget a user (partial)
         * @description Omitted fields keep their value. In `budget`, an omitted window keeps its limit and `null` removes it; `budget: null` removes both. A disabled user's keys answer 401 `invalid_api_key` and its tokens 401 `token_revoked` until it is enabled again.
         */
        put: operations["adminUpdateUser"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/llm/providers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List providers */
        get: operations["listProviders"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/llm/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List models
         * @description Every provider is queried in parallel under a per-provider deadline. Provider credentials travel in `X-Router-Provider-<Provider>-Api-Key` headers (provider name case-insensitive; a compatible instance uses its instance name). They are used for this one request only and never logged, traced or forwarded.
         */
        get: operations["listModels"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the caller's sessions */
        get: operations["listSessions"];
        put?: never;
        /** Create a session */
        post: operations["createSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sessions/{session_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Not a UUID: 400 `invalid_session_id`. */
                session_id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        /** Fetch a session */
        get: operations["getSession"];
        /** Update a session (partial) */
        put: operations["updateSession"];
        post?: never;
        /** Delete a session and its memory */
        delete: operations["deleteSession"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sessions/{session_id}/execute": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Not a UUID: 400 `invalid_session_id`. */
                session_id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start a run / run a turn
         * @description Send `Accept: text/event-stream` for a stream. Failures found before a stream starts are plain JSON errors. Provider credentials travel in `X-Router-Provider-<Provider>-Api-Key` headers (provider name case-insensitive; a compatible instance uses its instance name). They are used for this one request only and never logged, traced or forwarded.
         */
        post: operations["execute"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sessions/{session_id}/continue": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Not a UUID: 400 `invalid_session_id`. */
                session_id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Advance a run
         * @description 422 `no_active_run` with no run in progress, `continuation_mismatch` when the kind does not answer the pause, `invalid_request` for bad data. Provider credentials travel in `X-Router-Provider-<Provider>-Api-Key` headers (provider name case-insensitive; a compatible instance uses its instance name). They are used for this one request only and never logged, traced or forwarded.
         */
        post: operations["continueRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sessions/{session_id}/preview": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Not a UUID: 400 `invalid_session_id`. */
                session_id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Routing decision without a model call
         * @description No completion is requested, no lock is taken, nothing changes. Provider credentials travel in `X-Router-Provider-<Provider>-Api-Key` headers (provider name case-insensitive; a compatible instance uses its instance name). They are used for this one request only and never logged, traced or forwarded.
         */
        post: operations["preview"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sessions/{session_id}/traces": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Not a UUID: 400 `invalid_session_id`. */
                session_id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        /** Session trace */
        get: operations["getTrace"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sessions/{session_id}/usage": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Not a UUID: 400 `invalid_session_id`. */
                session_id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        /** Session usage totals */
        get: operations["getUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/policies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the caller's named policies */
        get: operations["listPolicies"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/policies/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Lower-case letters, digits, `_`, `.` and `-`, starting with a letter or digit, at most 64 characters; another name is 422 `invalid_request` naming `name`. */
                name: components["parameters"]["PolicyName"];
            };
            cookie?: never;
        };
        /** Fetch the latest version of a named policy */
        get: operations["getPolicy"];
        /**
         * Store a policy as the next version of a name
         * @description The body is a policy, validated exactly as a turn body's `policy`: the same codes, and `details.path` names the field as in a turn body (`policy.routing.rules[2].effort`). It is stored, defaults filled in and unknown fields dropped, as a new immutable version of the name for the caller, numbered from 1.
         */
        put: operations["putPolicy"];
        post?: never;
        /** Delete a named policy and all its versions */
        delete: operations["deletePolicy"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/policies/{name}/versions/{version}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Lower-case letters, digits, `_`, `.` and `-`, starting with a letter or digit, at most 64 characters; another name is 422 `invalid_request` naming `name`. */
                name: components["parameters"]["PolicyName"];
                /** @description A whole number from 1; another value is 422 `invalid_request` naming `version`. */
                version: components["parameters"]["PolicyVersion"];
            };
            cookie?: never;
        };
        /** Fetch one version of a named policy */
        get: operations["getPolicyVersion"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/chat/completions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * OpenAI Chat Completions
         * @description One turn of one model call, routed by the named policy the `model` field names.
         */
        post: operations["createChatCompletion"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Anthropic Messages
         * @description One turn of one model call, routed by the named policy the `model` field names.
         */
        post: operations["createMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/count_tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Anthropic token count
         * @description The input's token estimate, as routing counts it.
         */
        post: operations["countMessageTokens"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/responses": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * OpenAI Responses: create a response
         * @description One turn of one model call, routed by the named policy the `model` field names, as `/v1/chat/completions` is. `store` (default true) keeps the response retrievable by its owner; `previous_response_id` continues that response's session with its conversation supplied by the service; `store: false` is retrievable by no one but is still a recorded turn of a session. Streamed (`stream: true`) as OpenAI's semantic events, `sequence_number` from 0.
         */
        post: operations["createResponse"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/responses/input_tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * OpenAI Responses: count input tokens
         * @description The estimate the service routes and trims with, of everything the request would send: instructions, the conversation (a previous response's chain included) and the tools.
         */
        post: operations["countResponseInputTokens"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/responses/{response_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * OpenAI Responses: retrieve a stored response
         * @description A response the caller stored (`store: true`); another user's, a deleted or an unstored one is 404.
         */
        get: operations["getResponse"];
        put?: never;
        post?: never;
        /**
         * OpenAI Responses: delete a stored response
         * @description Forgets the response: it can no longer be retrieved, continued or referenced. The turn stays recorded in its session.
         */
        delete: operations["deleteResponse"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/responses/{response_id}/input_items": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * OpenAI Responses: a stored response's input items
         * @description The items the request gave (item references resolved, reasoning items left out), each with an id; OpenAI's cursor list.
         */
        get: operations["listResponseInputItems"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Models for the compatible APIs
         * @description `switchyard`, `switchyard/<name>` per named policy, then the catalog's `provider/model` for the request's provider credentials.
         */
        get: operations["listCompatModels"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/models/{model_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One model for the compatible APIs
         * @description `switchyard`, or a model id with its `/` encoded.
         */
        get: operations["getCompatModel"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/models/{provider}/{model_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One `provider/model` for the compatible APIs */
        get: operations["getCompatProviderModel"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Usage across sessions, with the budget
         * @description The caller's usage events of every session (deleted sessions' went with them) recorded in the period, as a session's usage report shapes them (`total` adds `request_count`), plus `by_day` (every day of the period, empty days at zero) and `budget`: the user's limits in the current UTC day and month with what the budget counts (`spent`, every call whatever the session, encrypted ones included), what calls in flight reserve, and what is left. The figures equal the sum of the sessions' usage reports to the last decimal; a call of an encrypted session counts as a request and adds no figures. A bad date: 400 `invalid_request`, `details.parameter` naming it.
         */
        get: operations["getUserUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Usage across sessions of every user
         * @description `GET /api/v1/usage` for every user, oldest first, users without usage in the period included.
         */
        get: operations["adminUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
};
export type webhooks = Record<string, never>;
export type components = {
    schemas: {
        /**
         * @description Closed set of error codes (src/core/errors.ts).
         * @enum {string}
         */
        ErrorCode: "invalid_request" | "not_found" | "method_not_allowed" | "payload_too_large" | "credentials_in_query" | "invalid_session_id" | "missing_credentials" | "invalid_api_key" | "invalid_token" | "token_expired" | "token_revoked" | "forbidden" | "session_not_found" | "unknown_intent" | "unknown_effort" | "invalid_model_reference" | "invalid_provider_name" | "unknown_provider" | "unknown_model" | "permission_expansion" | "no_route" | "context_window_exceeded" | "routing_unsupported_capability" | "missing_capability" | "override_not_allowed" | "fallback_exhausted" | "missing_provider_credentials" | "run_in_flight" | "no_active_run" | "continuation_mismatch" | "approval_required" | "budget_exceeded" | "turn_interrupted" | "context_length_exceeded" | "invalid_provider_configuration" | "invalid_provider_credentials" | "model_not_found" | "provider_authentication" | "provider_error" | "provider_unavailable" | "provider_unsupported_capability" | "rate_limited" | "request_timeout" | "storage_error" | "shutting_down" | "not_implemented" | "internal_error";
        ErrorEnvelope: {
            error: {
                code: components["schemas"]["ErrorCode"];
                /** @description Human-readable; may change. Never contains secrets. */
                message: string;
                /** @description Optional structured detail, e.g. the failing field path. Never secrets. */
                details?: Record<string, unknown>;
            };
        };
        /** Format: uuid */
        Uuid: string;
        /**
         * Format: date-time
         * @description ISO 8601 UTC.
         */
        Timestamp: string;
        /** @description Exact decimal in plain notation. */
        Decimal: string;
        /**
         * @description ISO 4217 code; always `USD` today.
         * @example USD
         */
        Currency: string;
        /** @enum {string} */
        TaskIntent: "chat" | "plan" | "edit" | "review" | "summarize" | "prompt" | "skill";
        /** @enum {string} */
        Effort: "low" | "medium" | "high" | "xhigh";
        /** @enum {string} */
        PermissionMode: "allow" | "ask" | "deny";
        /**
         * @description `provider/model`, split at the first `/`.
         * @example openai/gpt-4o
         */
        ModelReference: string;
        /** @description `kind:id` naming a piece of content in an encrypted session. */
        ContentReference: string;
        /** @enum {string} */
        ContinuationKind: "tool_results" | "approval_decisions" | "decrypted" | "sealed" | "inject" | "break";
        /** @enum {string} */
        TurnStatus: "completed" | "awaiting_tool" | "awaiting_approval" | "awaiting_decrypt" | "awaiting_encrypt" | "idle" | "error";
        /** @description Client-sealed content; the service stores it verbatim and never opens it. An envelope that cannot be genuine (wrong key id, cut ciphertext, nonce of the wrong size) is 422 invalid_request. */
        Envelope: {
            /** @description Envelope format version; 1. */
            version: number;
            /** @description AEAD algorithm name. */
            algorithm: string;
            /** @description Must equal the session's key id. */
            key_id: string;
            /** @description Base64, not empty; 12 bytes for AES-GCM and ChaCha20-Poly1305, 24 for XChaCha20-Poly1305. */
            nonce: string;
            /** @description Base64; at least the 16-byte authentication tag. */
            ciphertext: string;
        };
        PlaintextMap: {
            [key: string]: string;
        };
        EnvelopeMap: {
            [key: string]: components["schemas"]["Envelope"];
        };
        BootstrapResponse: {
            user_id: components["schemas"]["Uuid"];
            /** @description Shown once. */
            api_key: string;
        };
        SignInResponse: {
            token: string;
            expires_at: components["schemas"]["Timestamp"];
        };
        SignOutResponse: {
            /** @constant */
            revoked: true;
        };
        MeResponse: {
            user_id: components["schemas"]["Uuid"];
        };
        /** @description Any other field is 422 `invalid_request` naming it. */
        CreateApiKeyRequest: {
            /** @description 1 to 100 characters (Unicode code points), not blank (not only white space or invisible format characters), without control characters (C0, DEL, C1), line or paragraph separators (U+2028, U+2029) or bidirectional formatting characters (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C); otherwise 422 `invalid_request` naming `name`. */
            name: string;
            /**
             * Format: date-time
             * @description An RFC 3339 date and time with seconds and its offset (e.g. `2027-01-01T00:00:00Z`), a real calendar date and time (`2027-02-30` or hour 24 is 422, never shifted), in the future; absent or null: never.
             */
            expires_at?: string | null;
        };
        CreateApiKeyResponse: {
            key_id: components["schemas"]["Uuid"];
            name: string;
            /** @description Shown once. */
            api_key: string;
            created_at: components["schemas"]["Timestamp"];
            expires_at: components["schemas"]["Timestamp"] | null;
        };
        ApiKeyInfo: {
            key_id: components["schemas"]["Uuid"];
            /** @description `bootstrap` for the key bootstrap returned, `initial` for the one an operator's user was made with. */
            name: string;
            created_at: components["schemas"]["Timestamp"];
            /** @description The last sign-in with it, or its last use on the compatible APIs (recorded at most once a minute). */
            last_used_at: components["schemas"]["Timestamp"] | null;
            expires_at: components["schemas"]["Timestamp"] | null;
            revoked_at: components["schemas"]["Timestamp"] | null;
        };
        ApiKeyListResponse: {
            keys: components["schemas"]["ApiKeyInfo"][];
        };
        RevokeApiKeyResponse: {
            /** @constant */
            revoked: true;
        };
        /** @description Any other field is 422 `invalid_request` naming it. */
        AdminAddUserRequest: {
            /** @description 1 to 100 characters (Unicode code points), not blank (not only white space or invisible format characters), without control characters (C0, DEL, C1), line or paragraph separators (U+2028, U+2029) or bidirectional formatting characters (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C); otherwise 422 `invalid_request` naming `name`. */
            name: string;
        };
        AdminAddUserResponse: {
            user_id: components["schemas"]["Uuid"];
            name: string;
            /** @description Shown once. */
            api_key: string;
        };
        /** @description Limits in USD per UTC day and month; null: no limit. */
        UserBudget: {
            daily: components["schemas"]["Decimal"] | null;
            monthly: components["schemas"]["Decimal"] | null;
        };
        /** @description The user's usage cost this UTC day and month, summed from its usage events (unpriced models count 0). */
        UserSpend: {
            day: components["schemas"]["Decimal"];
            month: components["schemas"]["Decimal"];
        };
        AdminUser: {
            user_id: components["schemas"]["Uuid"];
            /** @description Null for a user made by bootstrap until the operator names it. */
            name: string | null;
            created_at: components["schemas"]["Timestamp"];
            /** @description The last sign-in or API key use. */
            last_seen_at: components["schemas"]["Timestamp"] | null;
            disabled: boolean;
            budget: components["schemas"]["UserBudget"] | null;
            spend: components["schemas"]["UserSpend"];
        };
        AdminUserListResponse: {
            users: components["schemas"]["AdminUser"][];
        };
        /** @description Partial update; omitted fields keep their value. Any other field, here or in `budget`, is 422 `invalid_request` naming it. */
        AdminUpdateUserRequest: {
            name?: string | null;
            disabled?: boolean;
            budget?: {
                /** @description US dollars as a decimal string (at most 12 digits before the point and 10 after); null: no limit. A JSON number is 422 `invalid_request` naming the field. */
                daily?: string | null;
                /** @description US dollars as a decimal string (at most 12 digits before the point and 10 after); null: no limit. A JSON number is 422 `invalid_request` naming the field. */
                monthly?: string | null;
            } | null;
        };
        AdminUserResponse: {
            user: components["schemas"]["AdminUser"];
        };
        StatusResponse: {
            /** @constant */
            status: "ok";
            version: string;
        };
        SessionSummary: {
            id: components["schemas"]["Uuid"];
            title: string | null;
            /** @description Opaque grouping key; present only when the session has one. */
            scope?: string;
            /** @description True exactly when a `key_id` was given at creation. */
            encrypted: boolean;
            /** @description Present only for an encrypted session. */
            key_id?: string;
            created_at: components["schemas"]["Timestamp"];
            updated_at: components["schemas"]["Timestamp"];
            archived: boolean;
        };
        SessionDetail: {
            id: components["schemas"]["Uuid"];
            title: string | null;
            /** @description Present for encrypted sessions; its presence is the marker (no `encrypted` flag). */
            key_id?: string;
            created_at: components["schemas"]["Timestamp"];
            updated_at: components["schemas"]["Timestamp"];
            /** @description Oldest first. */
            messages: components["schemas"]["SessionMessage"][];
            metadata: Record<string, unknown>;
        };
        SessionMessage: {
            /**
             * @example user
             * @example assistant
             */
            role: string;
            content: {
                plaintext: string;
            } | {
                encrypted: components["schemas"]["Envelope"];
            };
            /** @description Provider behind an assistant turn; omitted for other roles. */
            provider?: string;
            /** @description Model behind an assistant turn; omitted for other roles. */
            model?: string;
        };
        CreateSessionRequest: {
            title: string;
            scope?: string;
            /** @description Makes the session end-to-end encrypted, permanently. */
            key_id?: string;
        };
        /** @description Partial update; omitted fields keep their value. */
        UpdateSessionRequest: {
            title?: string;
            archived?: boolean;
        };
        SessionResponse: {
            session: components["schemas"]["SessionSummary"];
        };
        SessionListResponse: {
            sessions: components["schemas"]["SessionSummary"][];
        };
        SessionDetailResponse: {
            session: components["schemas"]["SessionDetail"];
        };
        DeleteSessionResponse: {
            /** @constant */
            deleted: true;
        };
        /** @description Absent or false means unsupported. */
        Capabilities: {
            streaming?: boolean;
            tools?: boolean;
            json_output?: boolean;
            system_prompt?: boolean;
            images?: boolean;
            reasoning?: boolean;
            memory?: boolean;
        };
        /** @description Tool name to mode; a tool with no entry is `ask`. */
        PermissionMap: {
            [key: string]: components["schemas"]["PermissionMode"];
        };
        ClassificationRule: {
            intent: components["schemas"]["TaskIntent"];
            /** @default 1000 */
            priority: number;
            keywords?: string[];
            requires_any_context?: ("git_diff" | "git_branch" | "active_file" | "referenced_paths" | "pull_request")[];
        };
        RoutingRule: {
            /** @description Unique within the policy; reported as `matched_rule`. */
            name: string;
            /** @default 1000 */
            priority: number;
            effort?: components["schemas"]["Effort"];
            intent?: components["schemas"]["TaskIntent"] | null;
            /** @description Globs with .gitignore habits. */
            paths?: string[];
            local_only?: boolean;
            requires_capabilities?: components["schemas"]["Capabilities"];
            model: components["schemas"]["ModelReference"];
            fallbacks?: components["schemas"]["ModelReference"][];
            required_permissions?: {
                permissions?: components["schemas"]["PermissionMap"];
            };
            cost_limit?: components["schemas"]["Decimal"];
        };
        Policy: {
            /** @description Snapshot schema version. */
            version?: number;
            /** @description How the policy was assembled, e.g. merged. */
            source?: string;
            classification?: {
                /** @default chat */
                default_intent: components["schemas"]["TaskIntent"];
                rules?: components["schemas"]["ClassificationRule"][];
            };
            routing?: {
                default?: {
                    model: components["schemas"]["ModelReference"];
                    fallbacks?: components["schemas"]["ModelReference"][];
                };
                rules?: components["schemas"]["RoutingRule"][];
            };
            tools?: {
                permissions?: components["schemas"]["PermissionMap"];
            };
            privacy?: {
                restricted_paths?: string[];
                remote?: {
                    /** @default ask */
                    mode: components["schemas"]["PermissionMode"];
                    blocked_paths?: string[];
                };
                local?: {
                    /** @default allow */
                    mode: components["schemas"]["PermissionMode"];
                };
            };
            /**
             * @description Prompt caching; `auto` when absent. `auto`: requests to Anthropic models that carry no `cache_control` marks of the client's get two placed by the service (after the tools and system prompt, and on the last message), and OpenAI requests carry `prompt_cache_key` = the session id. `off`: the service adds neither; marks and keys a client sent itself are passed on either way.
             * @enum {unknown}
             */
            caching?: "auto" | "off";
        };
        PolicyVersionSummary: {
            name: string;
            version: number;
            created_at: components["schemas"]["Timestamp"];
        };
        NamedPolicy: {
            name: string;
            version: number;
            created_at: components["schemas"]["Timestamp"];
            /** @description The policy as stored: validated, defaults filled in; it can be sent back as a turn's `policy`. */
            policy: components["schemas"]["Policy"];
        };
        PolicyListResponse: {
            policies: components["schemas"]["PolicyVersionSummary"][];
        };
        DeletePolicyResponse: {
            /** @constant */
            deleted: true;
        };
        Skill: {
            name: string;
            /** @description Full skill body. */
            content: string;
        };
        Attachments: {
            files: {
                path: string;
                content: string;
                /** @example sha256:9f86d081884c7d65 */
                content_hash?: string;
                /** @description Required files cannot be dropped from the context. */
                required?: boolean;
            }[];
            instructions: {
                source: string;
                content: string;
            }[];
            /** @description Authoritative; routing rules may match them by name. */
            invoked_skills?: components["schemas"]["Skill"][];
            /** @description Offered to the model; never influence routing. */
            available_skills?: components["schemas"]["Skill"][];
        };
        /** @description Unknown fields are ignored. The body lists no providers or credentials. */
        TurnRequest: {
            input: {
                text?: string;
                /** @description Forces the task type. */
                command?: components["schemas"]["TaskIntent"] | null;
                /** @description Bypasses routing. */
                explicit_model?: components["schemas"]["ModelReference"] | null;
                /** @description Sealed prompt, encrypted sessions only. */
                ciphertext?: components["schemas"]["Envelope"];
            };
            workspace?: {
                root?: string;
                git_branch?: string | null;
                git_diff?: string | null;
                referenced_paths?: string[];
                active_file?: string | null;
            };
            policy?: components["schemas"]["Policy"];
            local_preferences?: {
                auto_apply?: boolean;
                local_only?: boolean;
                no_network?: boolean;
            };
            attachments?: components["schemas"]["Attachments"];
        };
        ToolResult: {
            call_id: string;
            content?: string;
            is_error?: boolean;
            /**
             * @description Outcome of the approval of an `ask` call.
             * @enum {string}
             */
            decision?: "approved" | "rejected";
        };
        ApprovalDecision: {
            approval_id: string;
            /** @enum {string} */
            decision: "approved" | "rejected";
            reason?: string | null;
        };
        InjectedMessage: {
            text?: string;
            ciphertext?: components["schemas"]["Envelope"];
        };
        /** @description One tagged continuation; valid `type` values are those of the previous `allowed_continuations`, `break` always. */
        ContinueRequest: {
            /** @constant */
            type: "tool_results";
            data: {
                results: components["schemas"]["ToolResult"][];
                encrypted?: components["schemas"]["EnvelopeMap"];
            };
        } | {
            /** @constant */
            type: "approval_decisions";
            data: {
                decisions: components["schemas"]["ApprovalDecision"][];
                encrypted?: components["schemas"]["EnvelopeMap"];
            };
        } | {
            /** @constant */
            type: "decrypted";
            data: {
                plaintext: components["schemas"]["PlaintextMap"];
                encrypted?: components["schemas"]["EnvelopeMap"];
            };
        } | {
            /** @constant */
            type: "sealed";
            data: {
                encrypted: components["schemas"]["EnvelopeMap"];
            };
        } | {
            /** @constant */
            type: "inject";
            data: {
                messages: components["schemas"]["InjectedMessage"][];
            };
        } | {
            /** @constant */
            type: "break";
        };
        TurnMessage: {
            role: string;
            content: string;
            provider?: string;
            model?: string;
        };
        ClassificationResult: {
            intent: components["schemas"]["TaskIntent"];
            /** @enum {string} */
            source: "explicit" | "inferred";
            reason: string;
            /** @description Index of the rule in the policy as sent; null when none matched. */
            matched_rule: number | null;
            /**
             * @description Inferred intents only.
             * @enum {string}
             */
            confidence?: "low" | "medium" | "high";
        };
        TurnRouting: {
            task_type: components["schemas"]["TaskIntent"];
            provider: string;
            model: string;
            /** @description The rule's name; null when no rule matched. */
            matched_rule: string | null;
            fallback_used: boolean;
            override_used: boolean;
        };
        ContextOutcome: {
            included: string[];
            excluded: string[];
        };
        TurnUsage: {
            /** @description Omitted when the provider never reported it. */
            input_tokens?: number;
            /** @description Omitted when the provider never reported it. */
            output_tokens?: number;
            /** @description Prompt tokens read from the provider's cache, part of `input_tokens`; shown when non-zero. */
            cache_read_tokens?: number;
            /** @description Prompt tokens written to the provider's cache, part of `input_tokens`; shown when non-zero. */
            cache_write_tokens?: number;
            estimated_cost: components["schemas"]["Decimal"];
            currency: components["schemas"]["Currency"];
        };
        ToolRequest: {
            call_id: string;
            name: string;
            arguments: Record<string, unknown>;
            /** @enum {string} */
            requires_approval: "allow" | "ask";
        };
        PendingApproval: {
            approval_id: string;
            /** @enum {string} */
            kind: "remote_disclosure" | "cost_limit" | "plan";
            detail: Record<string, unknown>;
        } & (unknown & unknown & unknown);
        CompletedData: {
            message: components["schemas"]["TurnMessage"];
            classification: components["schemas"]["ClassificationResult"];
            routing: components["schemas"]["TurnRouting"];
            context: components["schemas"]["ContextOutcome"];
            usage: components["schemas"]["TurnUsage"];
            trace_id: string;
            /** @description Empty unless the session is encrypted. */
            to_encrypt: components["schemas"]["PlaintextMap"];
        };
        AwaitingToolData: {
            tool_requests: components["schemas"]["ToolRequest"][];
            trace_id: string;
            to_encrypt?: components["schemas"]["PlaintextMap"];
        };
        AwaitingApprovalData: {
            approval: components["schemas"]["PendingApproval"];
            trace_id: string;
            to_encrypt?: components["schemas"]["PlaintextMap"];
        };
        AwaitingDecryptData: {
            to_decrypt: components["schemas"]["EnvelopeMap"];
            trace_id: string;
            to_encrypt?: components["schemas"]["PlaintextMap"];
        };
        /** @description Other fields unspecified. */
        AwaitingEncryptData: {
            to_encrypt: components["schemas"]["PlaintextMap"];
            trace_id?: string;
        };
        /** @description Data shape and allowed continuations for each status. */
        TurnStatusRules: unknown & unknown & unknown & unknown & unknown & unknown & unknown;
        TurnResponse: {
            status: components["schemas"]["TurnStatus"];
            data: Record<string, unknown>;
            allowed_continuations: components["schemas"]["ContinuationKind"][];
        } & components["schemas"]["TurnStatusRules"];
        /** @description One server-sent event of a streamed turn; the stream ends with exactly one `turn_end`. */
        TurnStreamEvent: {
            /** @constant */
            type: "text_delta";
            delta: string;
        } | {
            /** @constant */
            type: "reasoning_delta";
            delta: string;
        } | {
            /** @constant */
            type: "tool_call_started";
            call_id: string;
            name: string;
        } | {
            /** @constant */
            type: "tool_call_requested";
            call_id: string;
            name: string;
            arguments: Record<string, unknown>;
            /** @enum {string} */
            requires_approval: "allow" | "ask";
        } | {
            /** @constant */
            type: "usage";
            input_tokens?: number;
            output_tokens?: number;
            /** @description Prompt tokens read from the provider's cache, part of `input_tokens`; shown when non-zero. */
            cache_read_tokens?: number;
            /** @description Prompt tokens written to the provider's cache, part of `input_tokens`; shown when non-zero. */
            cache_write_tokens?: number;
            estimated_cost: components["schemas"]["Decimal"];
            currency: components["schemas"]["Currency"];
        } | ({
            /** @constant */
            type: "turn_end";
            status: components["schemas"]["TurnStatus"];
            data: Record<string, unknown>;
            allowed_continuations: components["schemas"]["ContinuationKind"][];
        } & components["schemas"]["TurnStatusRules"]);
        PreviewRouting: {
            intent: components["schemas"]["TaskIntent"];
            provider: string;
            model: string;
            matched_rule: string | null;
            fallback_used: boolean;
            override_used: boolean;
            reason: string;
        };
        PreviewResponse: {
            classification: components["schemas"]["ClassificationResult"];
            routing: components["schemas"]["PreviewRouting"];
            included_context: string[];
            excluded_context: string[];
            estimated_cost: {
                min: components["schemas"]["Decimal"];
                max: components["schemas"]["Decimal"];
                currency: components["schemas"]["Currency"];
            };
            /** @description Tools named in the tool permissions or the matched rule, sorted by name. */
            required_permissions: {
                permission: string;
                mode: components["schemas"]["PermissionMode"];
            }[];
        };
        /** @enum {string} */
        TraceEventType: "message" | "classification" | "routing_decision" | "context_selection" | "tool_call" | "approval" | "cost";
        TracePayload: {
            plaintext: {
                type: components["schemas"]["TraceEventType"];
            };
        } | {
            encrypted: components["schemas"]["Envelope"];
        };
        TraceEvent: {
            event_type: components["schemas"]["TraceEventType"];
            task_type: string | null;
            provider: string | null;
            model: string | null;
            matched_rule?: string | number | null;
            created_at: components["schemas"]["Timestamp"];
            payload: components["schemas"]["TracePayload"];
            /** @description The id of the turn that recorded the event. */
            trace_id?: string;
        } & (unknown & unknown & unknown & unknown & unknown & unknown & unknown);
        TraceResponse: {
            trace: {
                session_id: components["schemas"]["Uuid"];
                /** @description Oldest first. */
                events: components["schemas"]["TraceEvent"][];
            };
        };
        /** @description Token and cost figures are omitted in encrypted sessions and when never reported. */
        UsageTotal: {
            input_tokens?: number;
            output_tokens?: number;
            /** @description Prompt tokens read from the provider's cache, part of `input_tokens`; shown when non-zero. */
            cache_read_tokens?: number;
            /** @description Prompt tokens written to the provider's cache, part of `input_tokens`; shown when non-zero. */
            cache_write_tokens?: number;
            total_tokens?: number;
            estimated_cost?: components["schemas"]["Decimal"];
            currency: components["schemas"]["Currency"];
        };
        UsageByModel: {
            provider: string;
            model: string;
            input_tokens?: number;
            output_tokens?: number;
            /** @description Prompt tokens read from the provider's cache, part of `input_tokens`; shown when non-zero. */
            cache_read_tokens?: number;
            /** @description Prompt tokens written to the provider's cache, part of `input_tokens`; shown when non-zero. */
            cache_write_tokens?: number;
            total_tokens?: number;
            estimated_cost?: components["schemas"]["Decimal"];
            currency?: components["schemas"]["Currency"];
            request_count: number;
        };
        UsageByTaskType: {
            task_type: string;
            input_tokens?: number;
            output_tokens?: number;
            /** @description Prompt tokens read from the provider's cache, part of `input_tokens`; shown when non-zero. */
            cache_read_tokens?: number;
            /** @description Prompt tokens written to the provider's cache, part of `input_tokens`; shown when non-zero. */
            cache_write_tokens?: number;
            estimated_cost?: components["schemas"]["Decimal"];
            request_count: number;
        };
        UsageReport: {
            total: components["schemas"]["UsageTotal"];
            /** @description First-seen order. */
            by_model: components["schemas"]["UsageByModel"][];
            /** @description First-seen order. */
            by_task_type: components["schemas"]["UsageByTaskType"][];
        };
        ProviderDescriptor: {
            /**
             * @example openai
             * @example ollama
             * @example openai-compat:lab
             */
            id: string;
            display_name: string;
            local: boolean;
        };
        ModelAuth: ("none" | "api_key" | "optional_api_key") | {
            custom: string;
        };
        ModelDescriptor: {
            provider: string;
            model: string;
            display_name?: string | null;
            local: boolean;
            auth: components["schemas"]["ModelAuth"];
            capabilities: components["schemas"]["Capabilities"];
            max_context_tokens: number;
            max_output_tokens?: number | null;
            input_cost_per_million_tokens?: components["schemas"]["Decimal"];
            output_cost_per_million_tokens?: components["schemas"]["Decimal"];
            /** @description Price of prompt tokens read from the provider's cache; absent: the input price. */
            cache_read_cost_per_million_tokens?: components["schemas"]["Decimal"];
            /** @description Price of prompt tokens written to the provider's cache; absent: the input price. */
            cache_write_cost_per_million_tokens?: components["schemas"]["Decimal"];
            default_parameters: Record<string, unknown>;
        };
        UnavailableEntry: {
            provider: string;
            /** @enum {string} */
            reason: "authentication" | "context_length" | "invalid_configuration" | "invalid_credentials" | "invalid_request" | "missing_credentials" | "model_not_found" | "provider_unavailable" | "rate_limit" | "storage" | "timeout" | "unknown" | "unsupported_capability";
            message?: string;
        };
        ProviderListResponse: {
            providers: components["schemas"]["ProviderDescriptor"][];
        };
        ModelListResponse: {
            models: components["schemas"]["ModelDescriptor"][];
            /** @description Absent when every provider was listed. */
            unavailable?: components["schemas"]["UnavailableEntry"][];
        };
        OpenApiDocument: {
            /** @constant */
            openapi: "3.1.0";
            info: {
                title: string;
                version: string;
            };
            paths: Record<string, unknown>;
        };
        /** @description An error in OpenAI's shape with OpenAI's HTTP status for it (invalid input 400): the native error code in `code`. */
        OpenAiError: {
            error: {
                message: string;
                type: string;
                param: string | null;
                code: components["schemas"]["ErrorCode"];
            };
        };
        /** @description An error in Anthropic's shape with Anthropic's HTTP status for it: invalid input 400, `request_too_large` 413, `overloaded_error` 529. */
        AnthropicError: {
            /** @constant */
            type: "error";
            error: {
                /** @enum {unknown} */
                type: "invalid_request_error" | "authentication_error" | "permission_error" | "not_found_error" | "request_too_large" | "rate_limit_error" | "api_error" | "overloaded_error";
                message: string;
            };
            /** @description The request's id, as its `request-id` header carries it (absent in a stream's `error` event). */
            request_id?: string;
        };
        /** @description OpenAI's Chat Completions request; unknown fields are ignored. */
        OpenAiChatRequest: {
            model: string;
            messages: Record<string, unknown>[];
            tools?: Record<string, unknown>[];
            tool_choice?: unknown;
            response_format?: Record<string, unknown>;
            temperature?: number;
            top_p?: number;
            max_tokens?: number;
            max_completion_tokens?: number;
            stop?: unknown;
            seed?: number;
            stream?: boolean;
            stream_options?: Record<string, unknown>;
        };
        OpenAiToolCall: {
            id: string;
            /** @constant */
            type: "function";
            function: {
                name: string;
                arguments: string;
            };
        };
        OpenAiUsage: {
            prompt_tokens: number;
            completion_tokens: number;
            total_tokens: number;
            prompt_tokens_details?: {
                /** @description The part of `prompt_tokens` read from the provider's cache. */
                cached_tokens: number;
            };
        };
        OpenAiChatCompletion: {
            id: string;
            /** @constant */
            object: "chat.completion";
            created: number;
            /** @description The `provider/model` that answered. */
            model: string;
            choices: {
                /** @constant */
                index: 0;
                message: {
                    /** @constant */
                    role: "assistant";
                    content: string | null;
                    refusal: null;
                    tool_calls?: components["schemas"]["OpenAiToolCall"][];
                };
                logprobs: null;
                /** @enum {unknown} */
                finish_reason: "stop" | "length" | "tool_calls" | "content_filter";
            }[];
            usage: components["schemas"]["OpenAiUsage"];
        };
        OpenAiModel: {
            id: string;
            /** @constant */
            object: "model";
            created: number;
            owned_by: string;
        };
        AnthropicModel: {
            /** @constant */
            type: "model";
            id: string;
            display_name: string;
            created_at: string;
        };
        /** @description OpenAI's list shape; Anthropic's when the request carries `anthropic-version`: `switchyard`, `switchyard/<name>` per named policy, then the catalog's `provider/model`. */
        CompatModelList: {
            /** @constant */
            object: "list";
            data: components["schemas"]["OpenAiModel"][];
        } | {
            data: components["schemas"]["AnthropicModel"][];
            has_more: boolean;
            first_id: string | null;
            last_id: string | null;
        };
        CompatModel: components["schemas"]["OpenAiModel"] | components["schemas"]["AnthropicModel"];
        /** @description Anthropic's Messages request (`max_tokens` required for /v1/messages); unknown fields are ignored. */
        AnthropicMessagesRequest: {
            model: string;
            max_tokens?: number;
            system?: unknown;
            messages: Record<string, unknown>[];
            tools?: Record<string, unknown>[];
            tool_choice?: Record<string, unknown>;
            stop_sequences?: string[];
            temperature?: number;
            top_p?: number;
            stream?: boolean;
        };
        AnthropicMessage: {
            id: string;
            /** @constant */
            type: "message";
            /** @constant */
            role: "assistant";
            model: string;
            content: ({
                /** @constant */
                type: "text";
                text: string;
            } | {
                /** @constant */
                type: "tool_use";
                id: string;
                name: string;
                input: Record<string, unknown>;
            })[];
            /** @enum {unknown} */
            stop_reason: "end_turn" | "tool_use" | "max_tokens" | "refusal";
            stop_sequence: null;
            usage: {
                /** @description Prompt tokens neither read from nor written to the cache. */
                input_tokens: number;
                cache_creation_input_tokens: number;
                cache_read_input_tokens: number;
                output_tokens: number;
            };
        };
        AnthropicTokenCount: {
            input_tokens: number;
        };
        /** @description OpenAI's response create request; the fields the service takes, ignores and refuses are listed in the documentation. Unknown fields are ignored. */
        ResponsesRequest: {
            /** @description `switchyard`, `switchyard/<name>[@<version>]` or a `provider/model`. */
            model: string;
            /** @description A string (one user message) or input items: `message` (roles user, system, developer, assistant), `function_call`, `function_call_output`, `custom_tool_call`, `custom_tool_call_output`, `reasoning` (dropped), `item_reference` (to an item of a response the caller stored). */
            input?: string | Record<string, unknown>[];
            /** @description The system prompt. */
            instructions?: string | null;
            previous_response_id?: string | null;
            /** @default true */
            store: boolean | null;
            stream?: boolean | null;
            tools?: Record<string, unknown>[];
            tool_choice?: ("auto" | "none" | "required") | Record<string, unknown>;
            text?: Record<string, unknown>;
            temperature?: number | null;
            top_p?: number | null;
            max_output_tokens?: number | null;
            parallel_tool_calls?: boolean | null;
            /**
             * @default disabled
             * @enum {string|null}
             */
            truncation: "auto" | "disabled" | null;
            reasoning?: Record<string, unknown> | null;
            metadata?: {
                [key: string]: string;
            } | null;
            /** @description The client's conversation key: one session per user and key. */
            prompt_cache_key?: string | null;
        };
        /** @description OpenAI's response object. */
        ResponsesResponse: {
            id: string;
            /** @constant */
            object: "response";
            created_at: number;
            /** @enum {string} */
            status: "completed" | "incomplete" | "failed" | "in_progress";
            error: null | {
                code: string;
                message: string;
            };
            incomplete_details: null | {
                /** @enum {string} */
                reason: "max_output_tokens" | "content_filter";
            };
            /** @description The `provider/model` that answered. */
            model: string;
            output: {
                /** @enum {string} */
                type: "message" | "function_call" | "custom_tool_call";
                id: string;
            }[];
            usage?: null | {
                input_tokens: number;
                input_tokens_details: {
                    cached_tokens: number;
                };
                output_tokens: number;
                output_tokens_details: {
                    reasoning_tokens: number;
                };
                total_tokens: number;
            };
            previous_response_id?: string | null;
            store?: boolean;
        };
        ResponsesItemList: {
            /** @constant */
            object: "list";
            data: Record<string, unknown>[];
            has_more: boolean;
            first_id: string | null;
            last_id: string | null;
        };
        ResponsesDeleted: {
            id: string;
            /** @constant */
            object: "response";
            /** @constant */
            deleted: true;
        };
        ResponsesInputTokens: {
            /** @constant */
            object: "response.input_tokens";
            input_tokens: number;
        };
        UsageDay: {
            /**
             * Format: date
             * @description A UTC calendar day.
             */
            date: string;
            input_tokens: number;
            output_tokens: number;
            /** @description Prompt tokens read from the provider's cache, part of `input_tokens`; shown when non-zero. */
            cache_read_tokens?: number;
            /** @description Prompt tokens written to the provider's cache, part of `input_tokens`; shown when non-zero. */
            cache_write_tokens?: number;
            total_tokens: number;
            estimated_cost: components["schemas"]["Decimal"];
            currency: components["schemas"]["Currency"];
            request_count: number;
        };
        /** @description One window of a budget now: the spend it counts, the input costs reserved by the user's calls in flight, what is left, and when the window starts again. */
        BudgetWindow: {
            limit: components["schemas"]["Decimal"];
            spent: components["schemas"]["Decimal"];
            reserved: components["schemas"]["Decimal"];
            /** @description limit − spent − reserved, never below "0". */
            left: components["schemas"]["Decimal"];
            resets_at: components["schemas"]["Timestamp"];
        };
        /** @description The budget in the current UTC day and month; a window without a limit is null. */
        BudgetStatus: {
            daily: components["schemas"]["BudgetWindow"] | null;
            monthly: components["schemas"]["BudgetWindow"] | null;
            currency: components["schemas"]["Currency"];
        };
        PeriodUsageReport: {
            /** Format: date */
            from: string;
            /** Format: date */
            to: string;
            /** @description As a session report's total, with the number of model calls. */
            total: {
                input_tokens?: number;
                output_tokens?: number;
                /** @description Prompt tokens read from the provider's cache, part of `input_tokens`; shown when non-zero. */
                cache_read_tokens?: number;
                /** @description Prompt tokens written to the provider's cache, part of `input_tokens`; shown when non-zero. */
                cache_write_tokens?: number;
                total_tokens?: number;
                estimated_cost?: components["schemas"]["Decimal"];
                currency: components["schemas"]["Currency"];
                request_count: number;
            };
            by_day: components["schemas"]["UsageDay"][];
            by_model: components["schemas"]["UsageByModel"][];
            by_task_type: components["schemas"]["UsageByTaskType"][];
            /** @description Null: the user has no budget. */
            budget: components["schemas"]["BudgetStatus"] | null;
        };
        AdminUsageResponse: {
            /** Format: date */
            from: string;
            /** Format: date */
            to: string;
            users: {
                user_id: components["schemas"]["Uuid"];
                name: string | null;
                /** @description As a session report's total, with the number of model calls. */
                total: {
                    input_tokens?: number;
                    output_tokens?: number;
                    /** @description Prompt tokens read from the provider's cache, part of `input_tokens`; shown when non-zero. */
                    cache_read_tokens?: number;
                    /** @description Prompt tokens written to the provider's cache, part of `input_tokens`; shown when non-zero. */
                    cache_write_tokens?: number;
                    total_tokens?: number;
                    estimated_cost?: components["schemas"]["Decimal"];
                    currency: components["schemas"]["Currency"];
                    request_count: number;
                };
                by_day: components["schemas"]["UsageDay"][];
                by_model: components["schemas"]["UsageByModel"][];
                by_task_type: components["schemas"]["UsageByTaskType"][];
                /** @description Null: the user has no budget. */
                budget: components["schemas"]["BudgetStatus"] | null;
            }[];
        };
    };
    responses: {
        /** @description Invalid request: malformed JSON, a malformed session id, an invalid query parameter (including one holding a NUL character, `details.path` naming it as `query.<name>`), or a credential sent in the query string (answered on every path before anything else). */
        BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "invalid_request" | "invalid_session_id" | "credentials_in_query";
                    };
                };
            };
        };
        /** @description Missing or invalid authentication. */
        Unauthorized: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "missing_credentials" | "invalid_api_key" | "invalid_token" | "token_expired" | "token_revoked";
                    };
                };
            };
        };
        /** @description Blocked by ownership or policy. */
        Forbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "forbidden" | "override_not_allowed" | "approval_required";
                    };
                };
            };
        };
        /** @description Not found; sessions of other users and archived sessions answer as if absent. */
        NotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "not_found" | "session_not_found" | "model_not_found";
                    };
                };
            };
        };
        /** @description Known path, method not allowed; the `Allow` header lists the allowed methods. */
        MethodNotAllowed: {
            headers: {
                /** @description Methods the path accepts. */
                Allow: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "method_not_allowed";
                    };
                };
            };
        };
        /** @description A turn is already in flight for the session. (`turn_interrupted`, a turn stopped by a native `break` or `inject`, is answered only by the compatible surfaces, with 400.) */
        Conflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "run_in_flight" | "turn_interrupted";
                    };
                };
            };
        };
        /** @description The request body exceeds `router.limits.max_request_body_bytes`. */
        PayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "payload_too_large";
                    };
                };
            };
        };
        /** @description Valid JSON failing domain validation, or a routing rejection. `details.path` names the field at fault. A model reference in the policy (a rule's `model` or `fallbacks`, `routing.default`) whose provider is malformed answers `invalid_provider_name`, and one naming a provider this service does not know answers `unknown_provider` whether or not the rule matched; a known provider whose model is not in today's catalog is only skipped as unavailable. A string anywhere in the body (values and object keys) holding a NUL character (U+0000) or an unpaired UTF-16 surrogate answers `invalid_request` naming it: such text cannot be stored or sent on. */
        UnprocessableEntity: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "invalid_request" | "unknown_intent" | "unknown_effort" | "invalid_model_reference" | "invalid_provider_name" | "unknown_provider" | "unknown_model" | "permission_expansion" | "no_route" | "context_window_exceeded" | "routing_unsupported_capability" | "missing_capability" | "no_active_run" | "continuation_mismatch" | "context_length_exceeded" | "provider_unsupported_capability";
                    };
                };
            };
        };
        /** @description Rate limited: by the provider (`rate_limited` from a model call), or by this service's own limits (per client address on bootstrap and sign-in and for wrong bearer tokens, per user on every authenticated endpoint); then `Retry-After` gives the seconds to wait and `details.retry_after_seconds` the same. `budget_exceeded`: a model call the user's budget does not admit, refused before it was made; `details` is `{ window, limit, spent, reserved, estimated_cost, resets_at }` and `Retry-After` the seconds until the window resets. */
        TooManyRequests: {
            headers: {
                /** @description Seconds until the service-side limit admits the request again (sent with the service's own limits), or until the budget's window resets (`budget_exceeded`). */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "rate_limited" | "budget_exceeded";
                    };
                };
            };
        };
        /** @description Unexpected server error; details omitted. */
        InternalError: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "internal_error" | "invalid_provider_configuration";
                    };
                };
            };
        };
        /** @description Recognized but not implemented. */
        NotImplemented: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "not_implemented";
                    };
                };
            };
        };
        /** @description Provider error matching no known category, or a storage error. */
        BadGateway: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "provider_error" | "storage_error";
                    };
                };
            };
        };
        /** @description Provider or storage unavailable; fallbacks exhausted; provider credentials missing or rejected; the instance is shutting down (execute and continue; retry on another instance). */
        ServiceUnavailable: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "fallback_exhausted" | "missing_provider_credentials" | "invalid_provider_credentials" | "provider_authentication" | "provider_unavailable" | "shutting_down";
                    };
                };
            };
        };
        /** @description Provider timeout. */
        GatewayTimeout: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @enum {unknown} */
                        code?: "request_timeout";
                    };
                };
            };
        };
        /** @description No such path (decided before authentication, also for `/api/v1/status`). */
        PathNotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"] & {
                    error?: {
                        /** @constant */
                        code?: "not_found";
                    };
                };
            };
        };
        /** @description An error in OpenAI's shape with OpenAI's status for it, and the request's id; a turn that was recorded (a refusal) is named by the router headers. */
        OpenAiTurnError: {
            headers: {
                "x-request-id": components["headers"]["OpenAiRequestId"];
                "X-Router-Session-Id": components["headers"]["RefusedSessionId"];
                "X-Router-Trace-Id": components["headers"]["RefusedTraceId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["OpenAiError"];
            };
        };
        /** @description An error in Anthropic's shape with Anthropic's status for it, and the request's id; a turn that was recorded (a refusal) is named by the router headers. */
        AnthropicTurnError: {
            headers: {
                "request-id": components["headers"]["AnthropicRequestId"];
                "X-Router-Session-Id": components["headers"]["RefusedSessionId"];
                "X-Router-Trace-Id": components["headers"]["RefusedTraceId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["AnthropicError"];
            };
        };
        /** @description An error in Anthropic's shape with Anthropic's status for it, and the request's id. */
        AnthropicApiError: {
            headers: {
                "request-id": components["headers"]["AnthropicRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["AnthropicError"];
            };
        };
        /** @description An error in Anthropic's shape when the request carries `anthropic-version`, else in OpenAI's, each with its API's status and the request's id. */
        CompatApiError: {
            headers: {
                "x-request-id": components["headers"]["CompatOpenAiRequestId"];
                "request-id": components["headers"]["CompatAnthropicRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["OpenAiError"] | components["schemas"]["AnthropicError"];
            };
        };
        /** @description No such path under `/v1/`: in Anthropic's shape when the request carries `anthropic-version`, else in OpenAI's, with the request's id. */
        CompatPathNotFound: {
            headers: {
                "x-request-id": components["headers"]["CompatOpenAiRequestId"];
                "request-id": components["headers"]["CompatAnthropicRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["OpenAiError"] | components["schemas"]["AnthropicError"];
            };
        };
        /** @description A method a path under `/v1/` does not take (`Allow` lists those it does), in the shape the request asks for. */
        CompatMethodNotAllowed: {
            headers: {
                /** @description The methods the path takes. */
                Allow: string;
                "x-request-id": components["headers"]["CompatOpenAiRequestId"];
                "request-id": components["headers"]["CompatAnthropicRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["OpenAiError"] | components["schemas"]["AnthropicError"];
            };
        };
    };
    parameters: {
        /** @description Not a UUID: 400 `invalid_session_id`. */
        SessionId: components["schemas"]["Uuid"];
        /** @description Lower-case letters, digits, `_`, `.` and `-`, starting with a letter or digit, at most 64 characters; another name is 422 `invalid_request` naming `name`. */
        PolicyName: string;
        /** @description A whole number from 1; another value is 422 `invalid_request` naming `version`. */
        PolicyVersion: number;
        /** @description An id from the keys list; any other (another user's, not a UUID): 404 `not_found`. */
        KeyId: string;
        /** @description A user id; an unknown one (or not a UUID): 404 `not_found`. */
        UserId: string;
    };
    requestBodies: never;
    headers: {
        /** @description The request's id (`req_…`), on every answer, errors included. */
        OpenAiRequestId: string;
        /** @description The request's id (`req_…`), on every answer, errors included. */
        AnthropicRequestId: string;
        /** @description The request's id (`req_…`) when answered in OpenAI's shape. */
        CompatOpenAiRequestId: string;
        /** @description The request's id (`req_…`) when answered in Anthropic's shape (the request carries `anthropic-version`). */
        CompatAnthropicRequestId: string;
        /** @description The session the refused or failed turn was recorded in, when one was. */
        RefusedSessionId: string;
        /** @description The trace of the refused or failed turn, when one was recorded. */
        RefusedTraceId: string;
    };
    pathItems: never;
};
export type $defs = Record<string, never>;
export interface operations {
    getStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The server answers. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            500: components["responses"]["InternalError"];
        };
    };
    getOpenApi: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenAPI 3.1 description of the interface. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenApiDocument"];
                };
            };
            400: components["responses"]["BadRequest"];
            500: components["responses"]["InternalError"];
        };
    };
    bootstrap: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description User created; the plaintext key appears only here. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BootstrapResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["BadGateway"];
        };
    };
    signIn: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A session token. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SignInResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["BadGateway"];
        };
    };
    signOut: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Token revoked; the API key stays valid. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SignOutResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["BadGateway"];
        };
    };
    me: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The caller. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MeResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["BadGateway"];
        };
    };
    listApiKeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every key of the caller, revoked ones too, oldest first. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKeyListResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["BadGateway"];
        };
    };
    createApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateApiKeyRequest"];
            };
        };
        responses: {
            /** @description Key created; the plaintext key appears only here. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreateApiKeyResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            422: components["responses"]["UnprocessableEntity"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["BadGateway"];
        };
    };
    revokeApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description An id from the keys list; any other (another user's, not a UUID): 404 `not_found`. */
                key_id: components["parameters"]["KeyId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RevokeApiKeyResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["BadGateway"];
        };
    };
    adminListUsers: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every user, oldest first. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminUserListResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["BadGateway"];
        };
    };
    adminAddUser: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AdminAddUserRequest"];
            };
        };
        responses: {
            /** @description User created; the plaintext key (named `initial`) appears only here. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminAddUserResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            422: components["responses"]["UnprocessableEntity"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["BadGateway"];
        };
    };
    adminUpdateUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A user id; an unknown one (or not a UUID): 404 `not_found`. */
                user_id: components["parameters"]["UserId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AdminUpdateUserRequest"];
            };
        };
        responses: {
            /** @description Updated. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminUserResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            422: components["responses"]["UnprocessableEntity"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["BadGateway"];
        };
    };
    listProviders: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Providers, order unspecified. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProviderListResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["BadGateway"];
        };
    };
    listModels: {
        parameters: {
            query?: never;
            header?: {
                /** @description Per-provider listing deadline in ms; default 10000, larger than 60000 is clamped; missing, zero or non-numeric means the default. */
                "X-Router-Timeout-Ms"?: number;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Models of every listable provider; the others under `unavailable`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ModelListResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["BadGateway"];
        };
    };
    listSessions: {
        parameters: {
            query?: {
                /** @description Exact match. */
                scope?: string;
                /** @description Case-insensitive substring match. */
                title?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every session of the caller, archived included, most recently updated first. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionListResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["BadGateway"];
        };
    };
    createSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateSessionRequest"];
            };
        };
        responses: {
            /** @description Created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            422: components["responses"]["UnprocessableEntity"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["BadGateway"];
        };
    };
    getSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Not a UUID: 400 `invalid_session_id`. */
                session_id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session with its messages. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionDetailResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["BadGateway"];
        };
    };
    updateSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Not a UUID: 400 `invalid_session_id`. */
                session_id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateSessionRequest"];
            };
        };
        responses: {
            /** @description Updated. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            422: components["responses"]["UnprocessableEntity"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["BadGateway"];
        };
    };
    deleteSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Not a UUID: 400 `invalid_session_id`. */
                session_id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeleteSessionResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["BadGateway"];
        };
    };
    execute: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Not a UUID: 400 `invalid_session_id`. */
                session_id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TurnRequest"];
            };
        };
        responses: {
            /** @description The turn outcome, buffered JSON or a server-sent event stream per `Accept`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TurnResponse"];
                    "text/event-stream": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            422: components["responses"]["UnprocessableEntity"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["BadGateway"];
            503: components["responses"]["ServiceUnavailable"];
            504: components["responses"]["GatewayTimeout"];
        };
    };
    continueRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Not a UUID: 400 `invalid_session_id`. */
                session_id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ContinueRequest"];
            };
        };
        responses: {
            /** @description The next turn, same shape as execute. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TurnResponse"];
                    "text/event-stream": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            422: components["responses"]["UnprocessableEntity"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["BadGateway"];
            503: components["responses"]["ServiceUnavailable"];
            504: components["responses"]["GatewayTimeout"];
        };
    };
    preview: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Not a UUID: 400 `invalid_session_id`. */
                session_id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TurnRequest"];
            };
        };
        responses: {
            /** @description The deterministic routing decision. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PreviewResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            422: components["responses"]["UnprocessableEntity"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["BadGateway"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getTrace: {
        parameters: {
            query?: {
                /** @description Maximum events returned, at most 1000 per page: a larger limit is read as 1000 (not refused), so page with a limit of 1000 or less and stop at a short page. */
                limit?: number;
                /** @description Leading events skipped. */
                offset?: number;
            };
            header?: never;
            path: {
                /** @description Not a UUID: 400 `invalid_session_id`. */
                session_id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Events oldest first; an empty window gives an empty array. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TraceResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["BadGateway"];
        };
    };
    getUsage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Not a UUID: 400 `invalid_session_id`. */
                session_id: components["parameters"]["SessionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Usage report (no wrapper). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UsageReport"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["BadGateway"];
        };
    };
    listPolicies: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Each name of the caller with its latest version, sorted by name (code units). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PolicyListResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["BadGateway"];
        };
    };
    getPolicy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Lower-case letters, digits, `_`, `.` and `-`, starting with a letter or digit, at most 64 characters; another name is 422 `invalid_request` naming `name`. */
                name: components["parameters"]["PolicyName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The latest version. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamedPolicy"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["UnprocessableEntity"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["BadGateway"];
        };
    };
    putPolicy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Lower-case letters, digits, `_`, `.` and `-`, starting with a letter or digit, at most 64 characters; another name is 422 `invalid_request` naming `name`. */
                name: components["parameters"]["PolicyName"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Policy"];
            };
        };
        responses: {
            /** @description The version stored. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamedPolicy"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            422: components["responses"]["UnprocessableEntity"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["BadGateway"];
        };
    };
    deletePolicy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Lower-case letters, digits, `_`, `.` and `-`, starting with a letter or digit, at most 64 characters; another name is 422 `invalid_request` naming `name`. */
                name: components["parameters"]["PolicyName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeletePolicyResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["UnprocessableEntity"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["BadGateway"];
        };
    };
    getPolicyVersion: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Lower-case letters, digits, `_`, `.` and `-`, starting with a letter or digit, at most 64 characters; another name is 422 `invalid_request` naming `name`. */
                name: components["parameters"]["PolicyName"];
                /** @description A whole number from 1; another value is 422 `invalid_request` naming `version`. */
                version: components["parameters"]["PolicyVersion"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description That version. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamedPolicy"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["UnprocessableEntity"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["BadGateway"];
        };
    };
    createChatCompletion: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OpenAiChatRequest"];
            };
        };
        responses: {
            /** @description The answer. Streamed (`stream: true`) in the API's own event format. */
            200: {
                headers: {
                    /** @description The session the turn was recorded in. */
                    "X-Router-Session-Id": string;
                    /** @description The turn's trace id. */
                    "X-Router-Trace-Id": string;
                    "x-request-id": components["headers"]["OpenAiRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiChatCompletion"];
                    "text/event-stream": string;
                };
            };
            400: components["responses"]["OpenAiTurnError"];
            401: components["responses"]["OpenAiTurnError"];
            403: components["responses"]["OpenAiTurnError"];
            404: components["responses"]["OpenAiTurnError"];
            405: components["responses"]["OpenAiTurnError"];
            413: components["responses"]["OpenAiTurnError"];
            429: components["responses"]["OpenAiTurnError"];
            500: components["responses"]["OpenAiTurnError"];
            503: components["responses"]["OpenAiTurnError"];
            504: components["responses"]["OpenAiTurnError"];
        };
    };
    createMessage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AnthropicMessagesRequest"];
            };
        };
        responses: {
            /** @description The answer. Streamed (`stream: true`) in the API's own event format. */
            200: {
                headers: {
                    /** @description The session the turn was recorded in. */
                    "X-Router-Session-Id": string;
                    /** @description The turn's trace id. */
                    "X-Router-Trace-Id": string;
                    "request-id": components["headers"]["AnthropicRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AnthropicMessage"];
                    "text/event-stream": string;
                };
            };
            400: components["responses"]["AnthropicTurnError"];
            401: components["responses"]["AnthropicTurnError"];
            403: components["responses"]["AnthropicTurnError"];
            404: components["responses"]["AnthropicTurnError"];
            405: components["responses"]["AnthropicTurnError"];
            413: components["responses"]["AnthropicTurnError"];
            429: components["responses"]["AnthropicTurnError"];
            500: components["responses"]["AnthropicTurnError"];
            504: components["responses"]["AnthropicTurnError"];
            529: components["responses"]["AnthropicTurnError"];
        };
    };
    countMessageTokens: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AnthropicMessagesRequest"];
            };
        };
        responses: {
            /** @description The answer. */
            200: {
                headers: {
                    "request-id": components["headers"]["AnthropicRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AnthropicTokenCount"];
                };
            };
            400: components["responses"]["AnthropicApiError"];
            401: components["responses"]["AnthropicApiError"];
            403: components["responses"]["AnthropicApiError"];
            404: components["responses"]["AnthropicApiError"];
            405: components["responses"]["AnthropicApiError"];
            413: components["responses"]["AnthropicApiError"];
            429: components["responses"]["AnthropicApiError"];
            500: components["responses"]["AnthropicApiError"];
            504: components["responses"]["AnthropicApiError"];
            529: components["responses"]["AnthropicApiError"];
        };
    };
    createResponse: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ResponsesRequest"];
            };
        };
        responses: {
            /** @description The response. Streamed (`stream: true`) as server-sent events, each `data` one of OpenAI's response stream events. */
            200: {
                headers: {
                    /** @description The session the turn was recorded in. */
                    "X-Router-Session-Id": string;
                    /** @description The turn's trace id. */
                    "X-Router-Trace-Id": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ResponsesResponse"];
                    "text/event-stream": string;
                };
            };
            /** @description An error in the API's own shape. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
        };
    };
    countResponseInputTokens: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ResponsesRequest"];
            };
        };
        responses: {
            /** @description The count. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ResponsesInputTokens"];
                };
            };
            /** @description An error in the API's own shape. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
        };
    };
    getResponse: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A response id (`resp_…`) of a response the caller stored. */
                response_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The response as it was answered. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ResponsesResponse"];
                };
            };
            /** @description An error in the API's own shape. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
        };
    };
    deleteResponse: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A response id (`resp_…`) of a response the caller stored. */
                response_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ResponsesDeleted"];
                };
            };
            /** @description An error in the API's own shape. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
        };
    };
    listResponseInputItems: {
        parameters: {
            query?: {
                limit?: number;
                order?: "asc" | "desc";
                /** @description An item id: the list starts after it. */
                after?: string;
            };
            header?: never;
            path: {
                /** @description A response id (`resp_…`) of a response the caller stored. */
                response_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The items. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ResponsesItemList"];
                };
            };
            /** @description An error in the API's own shape. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
            /** @description An error in the API's own shape. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAiError"];
                };
            };
        };
    };
    listCompatModels: {
        parameters: {
            query?: {
                /** @description With `anthropic-version`: models per page, 1–1000 (default 20). */
                limit?: number;
                /** @description With `anthropic-version`: the page after this model id. */
                after_id?: string;
                /** @description With `anthropic-version`: the page before this model id. */
                before_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The answer. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["CompatOpenAiRequestId"];
                    "request-id": components["headers"]["CompatAnthropicRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CompatModelList"];
                };
            };
            400: components["responses"]["CompatApiError"];
            401: components["responses"]["CompatApiError"];
            403: components["responses"]["CompatApiError"];
            404: components["responses"]["CompatApiError"];
            405: components["responses"]["CompatApiError"];
            413: components["responses"]["CompatApiError"];
            429: components["responses"]["CompatApiError"];
            500: components["responses"]["CompatApiError"];
            503: components["responses"]["CompatApiError"];
            504: components["responses"]["CompatApiError"];
            529: components["responses"]["CompatApiError"];
        };
    };
    getCompatModel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                model_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The answer. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["CompatOpenAiRequestId"];
                    "request-id": components["headers"]["CompatAnthropicRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CompatModel"];
                };
            };
            400: components["responses"]["CompatApiError"];
            401: components["responses"]["CompatApiError"];
            403: components["responses"]["CompatApiError"];
            404: components["responses"]["CompatApiError"];
            405: components["responses"]["CompatApiError"];
            413: components["responses"]["CompatApiError"];
            429: components["responses"]["CompatApiError"];
            500: components["responses"]["CompatApiError"];
            503: components["responses"]["CompatApiError"];
            504: components["responses"]["CompatApiError"];
            529: components["responses"]["CompatApiError"];
        };
    };
    getCompatProviderModel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                provider: string;
                model_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The answer. */
            200: {
                headers: {
                    "x-request-id": components["headers"]["CompatOpenAiRequestId"];
                    "request-id": components["headers"]["CompatAnthropicRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CompatModel"];
                };
            };
            400: components["responses"]["CompatApiError"];
            401: components["responses"]["CompatApiError"];
            403: components["responses"]["CompatApiError"];
            404: components["responses"]["CompatApiError"];
            405: components["responses"]["CompatApiError"];
            413: components["responses"]["CompatApiError"];
            429: components["responses"]["CompatApiError"];
            500: components["responses"]["CompatApiError"];
            503: components["responses"]["CompatApiError"];
            504: components["responses"]["CompatApiError"];
            529: components["responses"]["CompatApiError"];
        };
    };
    getUserUsage: {
        parameters: {
            query?: {
                /** @description First UTC day of the period, `YYYY-MM-DD` (inclusive). Absent: the first day of `to`'s month, or of this UTC month. */
                from?: string;
                /** @description Last UTC day of the period, `YYYY-MM-DD` (inclusive), not before `from`, at most 366 days after it. Absent: the last day of `from`'s month, or of this UTC month. */
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The usage report of the period. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PeriodUsageReport"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["BadGateway"];
        };
    };
    adminUsage: {
        parameters: {
            query?: {
                /** @description First UTC day of the period, `YYYY-MM-DD` (inclusive). Absent: the first day of `to`'s month, or of this UTC month. */
                from?: string;
                /** @description Last UTC day of the period, `YYYY-MM-DD` (inclusive), not before `from`, at most 366 days after it. Absent: the last day of `from`'s month, or of this UTC month. */
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Each user's usage report of the period. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminUsageResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["BadGateway"];
        };
    };
}
