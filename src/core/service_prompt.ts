/**
 * What the service itself adds to a native turn's model call, besides the
 * context it chose: its system preamble and the definitions of the tools it
 * offers. The engine sends these; the estimate counts them (decisions.md
 * §15), so both read them from here.
 */
import { toolCatalog } from "./tool_catalog.ts";
import { estimateTokens, estimateToolTokens, MESSAGE_TOKENS } from "./tokens.ts";
import type { TurnRequest } from "./turn_request_types.ts";

export const BASE_PREAMBLE =
  "You are a coding assistant working in the user's workspace through the tools offered. File paths are relative to the workspace root.";

export function branchLine(branch: string): string {
  return `Current git branch: ${branch}`;
}

/**
 * Tokens of what a native call sends beyond its context items and prompt
 * text: the preamble, the branch line, every catalog tool's definition (the
 * tools a rule denies are counted too, so the estimate never falls short) and
 * the prompt message's framing.
 */
export function serviceAdditionsTokens(request: TurnRequest): number {
  const branch = request.workspace.git_branch;
  return estimateTokens(BASE_PREAMBLE) +
    (branch === null ? 0 : estimateTokens(branchLine(branch))) +
    estimateToolTokens(toolCatalog(request)) + MESSAGE_TOKENS;
}
