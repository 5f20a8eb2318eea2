/**
 * Intent classification (decisions.md §4), deterministic and model-free.
 *
 * "An exact match anywhere beats a typo match" is read across rules: typo
 * tolerance is used only when no rule matches through an exact keyword (with
 * its other conditions holding). Then the rules are walked once more, in
 * priority order, with typos allowed. So an exact keyword of a later rule
 * beats a typo of an earlier one, while priority still decides between rules
 * matching the same way (a catch-all before an exactly matching rule wins).
 */
import { type KeywordMatchKind, matchKeyword } from "./keyword_match.ts";
import type { ClassificationRule, TurnRequest, Workspace } from "./turn_request_types.ts";
import type { Confidence, ContextKind, Intent } from "./vocabulary.ts";
import { words } from "./words.ts";

export interface ClassificationResult {
  intent: Intent;
  source: "explicit" | "inferred";
  reason: string;
  matched_rule: number | null;
  confidence?: Confidence;
}

interface RuleMatch {
  index: number;
  rule: ClassificationRule;
  keyword: { text: string; kind: KeywordMatchKind } | null;
  context: string | null;
}

/** Context kinds available to `requires_any_context`; `pull_request` never is. */
export function availableContextKinds(workspace: Workspace): Set<ContextKind> {
  const kinds = new Set<ContextKind>();
  if (workspace.git_diff !== null && workspace.git_diff !== "") kinds.add("git_diff");
  if (workspace.git_branch !== null && workspace.git_branch !== "") kinds.add("git_branch");
  if (workspace.active_file !== null && workspace.active_file !== "") kinds.add("active_file");
  if (workspace.referenced_paths.length > 0) kinds.add("referenced_paths");
  return kinds;
}

/** Rule indexes in evaluation order: ascending priority, ties in the order given. */
export function rulesInOrder<T extends { priority: number }>(rules: readonly T[]): number[] {
  return rules.map((_, i) => i).sort((a, b) => rules[a].priority - rules[b].priority || a - b);
}

function evaluate(
  rule: ClassificationRule,
  index: number,
  prompt: readonly string[],
  contexts: ReadonlySet<string>,
  allowTypos: boolean,
): RuleMatch | null {
  let keyword: RuleMatch["keyword"] = null;
  if (rule.keywords !== undefined && rule.keywords.length > 0) {
    // The first keyword found exactly, else the first found by a typo (when allowed).
    let exact: string | undefined;
    let typo: string | undefined;
    for (const kw of rule.keywords) {
      const kind = matchKeyword(prompt, kw, allowTypos);
      if (kind === "exact") {
        exact = kw;
        break;
      }
      if (kind === "typo") typo ??= kw;
    }
    if (exact !== undefined) keyword = { text: exact, kind: "exact" };
    else if (typo !== undefined) keyword = { text: typo, kind: "typo" };
    else return null;
  }
  let context: string | null = null;
  if (rule.requires_any_context !== undefined && rule.requires_any_context.length > 0) {
    context = rule.requires_any_context.find((kind) => contexts.has(kind)) ?? null;
    if (context === null) return null;
  }
  return { index, rule, keyword, context };
}

function firstMatch(
  rules: readonly ClassificationRule[],
  order: readonly number[],
  prompt: readonly string[],
  contexts: ReadonlySet<string>,
  allowTypos: boolean,
): RuleMatch | null {
  for (const i of order) {
    const match = evaluate(rules[i], i, prompt, contexts, allowTypos);
    if (match !== null) return match;
  }
  return null;
}

function describe(match: RuleMatch): { reason: string; confidence: Confidence } {
  const { keyword, context, index } = match;
  if (keyword !== null && context !== null) {
    return {
      reason: `keyword '${keyword.text}' and context '${context}' matched rule ${index}`,
      confidence: keyword.kind === "exact" ? "high" : "medium",
    };
  }
  if (keyword !== null) {
    return { reason: `keyword '${keyword.text}' matched rule ${index}`, confidence: "medium" };
  }
  if (context !== null) {
    return { reason: `context '${context}' matched rule ${index}`, confidence: "medium" };
  }
  return { reason: `catch-all rule ${index} matched`, confidence: "low" };
}

/**
 * Classifies one turn. `text` is the user's own text (the prompt or injected
 * text), never file contents or tool results.
 */
export function classify(
  request: TurnRequest,
  text: string = request.input.text,
): ClassificationResult {
  const command = request.input.command;
  if (command !== null) {
    return {
      intent: command,
      source: "explicit",
      reason: `explicit command '${command}'`,
      matched_rule: null,
    };
  }
  const { rules, default_intent } = request.policy.classification;
  const prompt = words(text);
  const contexts = availableContextKinds(request.workspace);
  // One exact pass over every rule tells both the first match and whether any
  // keyword matched exactly; only without an exact keyword are typos tried.
  const order = rulesInOrder(rules);
  const exact = order.map((i) => evaluate(rules[i], i, prompt, contexts, false));
  const exactFirst = exact.find((m) => m !== null) ?? null;
  const anyExactKeyword = exact.some((m) => m?.keyword?.kind === "exact");
  const match = anyExactKeyword ? exactFirst : firstMatch(rules, order, prompt, contexts, true);
  if (match === null) {
    return {
      intent: default_intent,
      source: "inferred",
      reason: `no rule matched; default intent '${default_intent}'`,
      matched_rule: null,
      confidence: "low",
    };
  }
  const { reason, confidence } = describe(match);
  return {
    intent: match.rule.intent,
    source: "inferred",
    reason,
    matched_rule: match.index,
    confidence,
  };
}
