/**
 * Every pure decision of one turn before the model is called: classification,
 * context candidates, routing, effective permissions, the filled context and
 * the cost estimate. The preview formats it; the run engine acts on it.
 */
import { type ContentNeed, replyReserve } from "./candidate_walk.ts";
import { type ClassificationResult, classify } from "./classification.ts";
import { type ContextSelection, fillContext, includedWorkspacePaths } from "./context_fill.ts";
import { type ContextItem, contextItems, requiredTokens } from "./context_items.ts";
import { type CostEstimate, estimateCost } from "./cost.ts";
import { ok, type Outcome } from "./errors.ts";
import type { ModelDescriptor, UnavailableEntry } from "./model.ts";
import { effectivePermissions } from "./permissions.ts";
import { constrainedPathMatcher, pathsNeedingApproval } from "./privacy.ts";
import { relevantPaths } from "./relevant_paths.ts";
import { decideRoute, type RoutingDecision } from "./routing.ts";
import type { HistoryMessage, MemoryEntry, ToolExchange } from "./run_items.ts";
import { serviceAdditionsTokens } from "./service_prompt.ts";
import { estimateTokens } from "./tokens.ts";
import type { TurnRequest } from "./turn_request_types.ts";
import type { PermissionMode } from "./vocabulary.ts";

export interface TurnDecisionInput {
  request: TurnRequest;
  catalog: readonly ModelDescriptor[];
  /** Providers a credential header was sent for. */
  credential_providers: readonly string[];
  /**
   * Providers the catalog lookup could not list for this request. Their models
   * are not usable; `missing_credentials` entries are left to the credential check.
   */
  unavailable?: readonly UnavailableEntry[];
  /** Registered provider ids; defaults to the providers of `catalog`. */
  known_providers?: readonly string[];
  history?: readonly HistoryMessage[];
  memory?: readonly MemoryEntry[];
  tool_exchanges?: readonly ToolExchange[];
  /** Workspace paths the user already approved for disclosure in this run. */
  approved_paths?: readonly string[];
  /** Paths of a sent conversation's earlier tool calls (compatible surfaces), for routing and privacy. */
  conversation_paths?: readonly string[];
  /**
   * Capabilities a compatible request's content needs beyond the native body
   * (images in its last user message, structured output): candidates without
   * them are skipped, as a rule's `requires_capabilities` skips them.
   */
  content_capabilities?: readonly ContentNeed[];
  /** Text to classify when it is not `input.text` (an injected message). */
  classification_text?: string;
  is_valid_provider_id?: (id: string) => boolean;
  /**
   * The estimate of the whole request as a compatible surface would send it
   * untrimmed (system prompt, tool definitions, every message: `estimateRequestTokens`).
   * Absent: a native turn, whose service additions the core counts itself.
   */
  sent_tokens?: number;
}

export interface TurnDecision {
  classification: ClassificationResult;
  relevant_paths: string[];
  items: ContextItem[];
  routing: RoutingDecision;
  permissions: Record<string, PermissionMode>;
  context: ContextSelection;
  estimate: CostEstimate;
  /** Paths that need a `remote_disclosure` (or local `ask`) approval before the call. */
  disclosure_paths: string[];
}

export function decideTurn(input: TurnDecisionInput): Outcome<TurnDecision> {
  const { request, catalog } = input;
  const classification = classify(request, input.classification_text ?? request.input.text);
  const tools = input.tool_exchanges ?? [];
  const paths = relevantPaths(request, tools, input.conversation_paths);
  const items = contextItems(request, constrainedPathMatcher(request.policy), {
    history: input.history,
    memory: input.memory,
    tool_exchanges: tools,
  });
  // What is sent besides the context items: a native call's service additions, or what a
  // compatible request carries beyond them (system, tools, framing, images). The untrimmed
  // total is then exactly the request's estimate (decisions.md §15).
  const textTokens = estimateTokens(request.input.text);
  const unlisted = input.sent_tokens === undefined
    ? serviceAdditionsTokens(request)
    : input.sent_tokens - items.reduce((sum, i) => i.duplicate ? sum : sum + i.tokens, textTokens);
  const promptTokens = Math.max(0, textTokens + unlisted);
  const routing = decideRoute({
    request,
    intent: classification.intent,
    items,
    relevant_paths: paths,
    required_tokens: requiredTokens(items, request.input.text) - textTokens + promptTokens,
    ...(input.content_capabilities === undefined
      ? {}
      : { content_capabilities: input.content_capabilities }),
    catalog,
    known_providers: new Set(input.known_providers ?? catalog.map((m) => m.provider)),
    credential_providers: new Set(input.credential_providers),
    unavailable_providers: new Map(
      (input.unavailable ?? []).filter((u) => u.reason !== "missing_credentials")
        .map((u) => [u.provider, u.reason]),
    ),
    is_valid_provider_id: input.is_valid_provider_id,
  });
  if (!routing.ok) return routing;
  const permissions = effectivePermissions(request.policy, routing.value.rule);
  if (!permissions.ok) return permissions;
  const model = routing.value.model;
  const context = fillContext(items, model, request.policy, promptTokens);
  if (!context.ok) return context;
  return ok({
    classification,
    relevant_paths: paths,
    items,
    routing: routing.value,
    permissions: permissions.value,
    context: context.value,
    estimate: estimateCost(model, context.value.input_tokens, replyReserve(model)),
    disclosure_paths: pathsNeedingApproval(
      request.policy,
      model.local,
      includedWorkspacePaths(context.value),
      new Set(input.approved_paths ?? []),
    ),
  });
}
