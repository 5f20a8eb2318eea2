/**
 * The body of `PUT /api/v1/policies/{name}`: a policy object, validated
 * exactly as a turn body's `policy` (decisions.md §12). It is checked as the
 * `policy` of an otherwise empty turn request, so the codes, messages and
 * `details` paths (`policy.routing.rules[2].effort`) are the execute body's,
 * and the result is the same normalised object, defaults filled in and unknown
 * fields dropped, that a turn would route with.
 */
import { ok, type Outcome } from "../core/errors.ts";
import type { Policy } from "../core/turn_request_types.ts";
import { parseTurnRequest } from "./turn_request.ts";

/** A stored policy's name (decisions.md §12). */
export const POLICY_NAME = /^[a-z0-9][a-z0-9_.-]{0,63}$/;

export function parsePolicy(body: Record<string, unknown>): Outcome<Policy> {
  const request = parseTurnRequest({ input: { text: "" }, policy: body });
  return request.ok ? ok(request.value.policy) : request;
}
