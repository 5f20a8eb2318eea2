/**
 * What an answer to a pause must seal in an encrypted session (decisions.md
 * §8): every reference the paused response listed in `to_encrypt`, and for a
 * tool pause the client-authored result of each call. A missing envelope, or
 * one sealed with another key, is 422 `invalid_request` and keeps the run.
 */
import type { EnvelopeMap } from "./continuation.ts";
import { fail, ok, type Outcome } from "./errors.ts";
import type { Pause } from "./run_state.ts";
import { envelopeProblem, isContentReference } from "./sealed_envelope.ts";

/** Where an encrypted session's client seals the result of a tool call. */
export function toolResultReference(callId: string): string {
  return `tool_call:${callId}:result`;
}

/** References the answer to `pause` must seal in an encrypted session. */
export function requiredSealed(pause: Pause): string[] {
  const refs = [...pause.to_encrypt];
  if (pause.kind === "tool") refs.push(...pause.calls.map((c) => toolResultReference(c.call_id)));
  return refs;
}

/**
 * The envelopes to store: each given one well formed and sealed with the
 * session's key, every required reference present. Unrequested references are
 * checked but not kept. A plaintext session stores none, so it checks none.
 */
export function checkSealed(
  given: EnvelopeMap | undefined,
  required: readonly string[],
  keyId: string | null,
): Outcome<EnvelopeMap> {
  if (keyId === null) return ok({});
  const map = given ?? {};
  for (const [ref, envelope] of Object.entries(map)) {
    const path = `data.encrypted.${ref}`;
    if (!isContentReference(ref)) {
      return fail(
        "invalid_request",
        `invalid sealed content: '${ref}' is not a content reference`,
        {
          path,
        },
      );
    }
    const problem = envelopeProblem(envelope, keyId);
    if (problem !== null) {
      return fail("invalid_request", `invalid sealed content: ${ref}: ${problem}`, { path });
    }
  }
  const missing = required.filter((ref) => !Object.hasOwn(map, ref));
  if (missing.length > 0) {
    return fail(
      "invalid_request",
      `invalid sealed content: missing ${missing.map((r) => `'${r}'`).join(", ")}`,
      { path: "data.encrypted", missing },
    );
  }
  return ok(Object.fromEntries(required.map((ref) => [ref, map[ref]])));
}
