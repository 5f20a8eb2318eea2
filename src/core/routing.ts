/**
 * The routing decision of one turn (decisions.md §5): an `explicit_model`
 * override, else the first matching rule, else the default route; then the
 * candidate walk under locality, credential, capability and window checks.
 */
import {
  type CandidateEnvironment,
  type ContentNeed,
  type SkippedCandidate,
  walkCandidates,
} from "./candidate_walk.ts";
import type { ContextItem } from "./context_items.ts";
import { fail, ok, type Outcome } from "./errors.ts";
import { localModelsBarred, type LocalReason, localRequirement } from "./locality.ts";
import type { ModelDescriptor } from "./model.ts";
import { resolveOverride } from "./model_override.ts";
import { checkPolicyProviders } from "./policy_providers.ts";
import { candidateReferences, choiceReason, selectRoute } from "./route_selection.ts";
import type { RoutingRule, TurnRequest } from "./turn_request_types.ts";
import type { Effort, Intent } from "./vocabulary.ts";

export interface RoutingInput {
  request: TurnRequest;
  intent: Intent;
  items: readonly ContextItem[];
  relevant_paths: readonly string[];
  required_tokens: number;
  /** Capabilities the request's content needs; an override is not gated (it names its model). */
  content_capabilities?: readonly ContentNeed[];
  catalog: readonly ModelDescriptor[];
  known_providers: ReadonlySet<string>;
  credential_providers: ReadonlySet<string>;
  /** Providers whose listing failed for this request, with the listing's reason. */
  unavailable_providers?: ReadonlyMap<string, string>;
  is_valid_provider_id?: (id: string) => boolean;
}

export interface RoutingDecision {
  reference: string;
  model: ModelDescriptor;
  /** The matched routing rule; `null` for an override or the default route. */
  rule: RoutingRule | null;
  fallback_used: boolean;
  override_used: boolean;
  reason: string;
  effort: Effort;
  local_required: LocalReason[];
  skipped: SkippedCandidate[];
}

function exhausted(
  localRequired: readonly LocalReason[],
  skipped: SkippedCandidate[],
  requiredTokens: number,
): Outcome<never> {
  const hops = skipped.map(({ model, reason }) => ({ model, reason }));
  if (localRequired.length > 0) {
    return fail("no_route", "no route: no usable local model, and this turn must stay local", {
      local_required: [...localRequired],
      skipped: hops,
    });
  }
  // Every candidate failed on size alone: the input is the problem, not availability.
  if (skipped.length > 0 && skipped.every((s) => s.check === "window")) {
    return fail(
      "context_window_exceeded",
      `context window exceeded: no candidate fits the required ${requiredTokens} tokens and a reply`,
      { required_tokens: requiredTokens, skipped: hops },
    );
  }
  return fail("fallback_exhausted", "fallback exhausted: no candidate of the route is usable", {
    skipped: hops,
  });
}

export function decideRoute(input: RoutingInput): Outcome<RoutingDecision> {
  const { request, items } = input;
  const localBarred = localModelsBarred(request, items);
  const override = request.input.explicit_model;
  if (override !== null) {
    const localRequired = localRequirement(request, items, null);
    const model = resolveOverride(override, {
      ...input,
      local_reasons: localRequired,
      local_barred: localBarred,
    });
    if (!model.ok) return model;
    const providers = checkPolicyProviders(request.policy, input.known_providers);
    if (!providers.ok) return providers;
    return ok({
      reference: override,
      model: model.value,
      rule: null,
      fallback_used: false,
      override_used: true,
      reason: `explicit model override '${override}'`,
      effort: "medium",
      local_required: localRequired,
      skipped: [],
    });
  }
  const providers = checkPolicyProviders(request.policy, input.known_providers);
  if (!providers.ok) return providers;
  const choice = selectRoute(request.policy, input.intent, input.relevant_paths);
  if (!choice.ok) return choice;
  const rule = choice.value.kind === "rule" ? choice.value.rule : null;
  const localRequired = localRequirement(request, items, rule);
  const env: CandidateEnvironment = {
    ...input,
    local_required: localRequired.length > 0,
    local_barred: localBarred,
    requires_capabilities: rule?.requires_capabilities,
  };
  const references = candidateReferences(choice.value);
  const walk = walkCandidates(references, env);
  if (walk.chosen === null) return exhausted(localRequired, walk.skipped, input.required_tokens);
  const { position, reference, model } = walk.chosen;
  let reason = choiceReason(choice.value);
  if (position > 0) {
    reason += ` (fallback ${position}: ${references[0]} unavailable: ${walk.skipped[0].reason})`;
  }
  return ok({
    reference,
    model,
    rule,
    fallback_used: position > 0,
    override_used: false,
    reason,
    effort: rule?.effort ?? "medium",
    local_required: localRequired,
    skipped: walk.skipped,
  });
}
