import type { Endpoint } from "./context.ts";
import type { Route } from "./router.ts";
import { addUser, listUsers, updateUserEndpoint } from "./routes/admin.ts";
import { bootstrap, me, signIn, signOut } from "./routes/auth.ts";
import { createKey, listKeys, revokeKey } from "./routes/keys.ts";
import { listModelsEndpoint, listProvidersEndpoint } from "./routes/llm.ts";
import { getMetrics } from "./routes/metrics.ts";
import {
  deletePolicyEndpoint,
  getPolicy,
  getPolicyVersion,
  listPolicies,
  putPolicy,
} from "./routes/policies.ts";
import { previewEndpoint } from "./routes/preview.ts";
import {
  createSession,
  deleteSessionEndpoint,
  getSession,
  listSessionsEndpoint,
  updateSessionEndpoint,
} from "./routes/sessions.ts";
import { continueEndpoint } from "./routes/continue.ts";
import { executeEndpoint } from "./routes/execute.ts";
import { chatCompletions, getCompatModel, listCompatModels } from "./routes/openai_compat.ts";
import { countTokens, messages } from "./routes/anthropic_compat.ts";
import {
  countInputTokens,
  createResponse,
  getResponse,
  listInputItems,
  removeResponse,
} from "./routes/responses.ts";
import { getOpenApi, getStatus } from "./routes/status.ts";
import { getTrace } from "./routes/traces.ts";
import { getUsage } from "./routes/usage.ts";
import { getAdminUsage, getUserUsage } from "./routes/usage_period.ts";
import { webFile, webPage } from "./routes/web.ts";

/** Every route of the service. Later resources add their rows here. */
export const ROUTES: readonly Route<Endpoint>[] = [
  { method: "GET", path: "/status", handler: getStatus },
  { method: "GET", path: "/metrics", handler: getMetrics },
  { method: "GET", path: "/api/v1/openapi.json", handler: getOpenApi },
  { method: "POST", path: "/api/v1/auth/bootstrap", handler: bootstrap },
  { method: "POST", path: "/api/v1/auth/sign-in", handler: signIn },
  { method: "POST", path: "/api/v1/auth/sign-out", handler: signOut },
  { method: "GET", path: "/api/v1/auth/me", handler: me },
  { method: "POST", path: "/api/v1/auth/keys", handler: createKey },
  { method: "GET", path: "/api/v1/auth/keys", handler: listKeys },
  { method: "DELETE", path: "/api/v1/auth/keys/:key_id", handler: revokeKey },
  { method: "POST", path: "/api/v1/admin/users", handler: addUser },
  { method: "GET", path: "/api/v1/admin/users", handler: listUsers },
  { method: "PUT", path: "/api/v1/admin/users/:user_id", handler: updateUserEndpoint },
  { method: "GET", path: "/api/v1/admin/usage", handler: getAdminUsage },
  { method: "GET", path: "/api/v1/llm/providers", handler: listProvidersEndpoint },
  { method: "GET", path: "/api/v1/llm/models", handler: listModelsEndpoint },
  { method: "POST", path: "/api/v1/sessions", handler: createSession },
  { method: "GET", path: "/api/v1/sessions", handler: listSessionsEndpoint },
  { method: "GET", path: "/api/v1/sessions/:session_id", handler: getSession },
  { method: "PUT", path: "/api/v1/sessions/:session_id", handler: updateSessionEndpoint },
  { method: "DELETE", path: "/api/v1/sessions/:session_id", handler: deleteSessionEndpoint },
  { method: "POST", path: "/api/v1/sessions/:session_id/execute", handler: executeEndpoint },
  { method: "POST", path: "/api/v1/sessions/:session_id/continue", handler: continueEndpoint },
  { method: "POST", path: "/api/v1/sessions/:session_id/preview", handler: previewEndpoint },
  { method: "GET", path: "/api/v1/sessions/:session_id/traces", handler: getTrace },
  { method: "GET", path: "/api/v1/sessions/:session_id/usage", handler: getUsage },
  { method: "GET", path: "/api/v1/usage", handler: getUserUsage },
  { method: "GET", path: "/api/v1/policies", handler: listPolicies },
  { method: "PUT", path: "/api/v1/policies/:name", handler: putPolicy },
  { method: "GET", path: "/api/v1/policies/:name", handler: getPolicy },
  { method: "DELETE", path: "/api/v1/policies/:name", handler: deletePolicyEndpoint },
  { method: "GET", path: "/api/v1/policies/:name/versions/:version", handler: getPolicyVersion },
  { method: "POST", path: "/v1/chat/completions", handler: chatCompletions },
  { method: "POST", path: "/v1/messages", handler: messages },
  { method: "POST", path: "/v1/messages/count_tokens", handler: countTokens },
  { method: "POST", path: "/v1/responses", handler: createResponse },
  { method: "POST", path: "/v1/responses/input_tokens", handler: countInputTokens },
  { method: "GET", path: "/v1/responses/:response_id", handler: getResponse },
  { method: "DELETE", path: "/v1/responses/:response_id", handler: removeResponse },
  { method: "GET", path: "/v1/responses/:response_id/input_items", handler: listInputItems },
  { method: "GET", path: "/v1/models", handler: listCompatModels },
  { method: "GET", path: "/v1/models/:model_id", handler: getCompatModel },
  { method: "GET", path: "/v1/models/:provider/:model_id", handler: getCompatModel },
  { method: "GET", path: "/console", handler: webPage("console") },
  { method: "GET", path: "/console/:file", handler: webFile("console") },
  { method: "GET", path: "/docs", handler: webPage("docs") },
  { method: "GET", path: "/docs/:file", handler: webFile("docs") },
];
