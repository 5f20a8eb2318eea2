/**
 * The body of `POST …/preview` (interface.md): the turn decision without a
 * model call, with every key in a fixed order so the same input gives
 * byte-identical JSON.
 */
import type { ClassificationResult } from "./classification.ts";
import { excludedStrings, includedStrings } from "./context_fill.ts";
import type { CostEstimate } from "./cost.ts";
import { ok, type Outcome } from "./errors.ts";
import { permissionList } from "./permissions.ts";
import { decideTurn, type TurnDecision, type TurnDecisionInput } from "./turn_decision.ts";
import type { Intent, PermissionMode } from "./vocabulary.ts";

export interface PreviewRouting {
  intent: Intent;
  provider: string;
  model: string;
  matched_rule: string | null;
  fallback_used: boolean;
  override_used: boolean;
  reason: string;
}

export interface PreviewResult {
  classification: ClassificationResult;
  routing: PreviewRouting;
  included_context: string[];
  excluded_context: string[];
  estimated_cost: CostEstimate;
  required_permissions: { permission: string; mode: PermissionMode }[];
}

export type PreviewInput = TurnDecisionInput;

export function classificationBody(c: ClassificationResult): ClassificationResult {
  const body: ClassificationResult = {
    intent: c.intent,
    source: c.source,
    reason: c.reason,
    matched_rule: c.matched_rule,
  };
  if (c.confidence !== undefined) body.confidence = c.confidence;
  return body;
}

export function previewBody(decision: TurnDecision): PreviewResult {
  const { routing, classification, context, estimate } = decision;
  return {
    classification: classificationBody(classification),
    routing: {
      intent: classification.intent,
      provider: routing.model.provider,
      model: routing.model.model,
      matched_rule: routing.rule?.name ?? null,
      fallback_used: routing.fallback_used,
      override_used: routing.override_used,
      reason: routing.reason,
    },
    included_context: includedStrings(context),
    excluded_context: excludedStrings(context),
    estimated_cost: { min: estimate.min, max: estimate.max, currency: estimate.currency },
    required_permissions: permissionList(decision.permissions),
  };
}

export function previewTurn(input: PreviewInput): Outcome<PreviewResult> {
  const decision = decideTurn(input);
  return decision.ok ? ok(previewBody(decision.value)) : decision;
}
