/**
 * The body of `POST …/continue` (interface.md): one tagged message
 * `{ type, data }`, `break` with no data. This checks the shape only; whether
 * the kind answers the run's pause is run_admission.ts, and whether the data
 * answers it is continuation_check.ts. Unknown fields are dropped.
 */
import { type } from "./ark.ts";
import type { Continuation } from "../core/continuation.ts";
import { fail, ok, type Outcome } from "../core/errors.ts";
import { formatPath } from "./validation.ts";

/** The encrypted envelope of interface.md, shape only (core/sealed_envelope.ts checks the rest). */
export const Envelope = type({
  version: "number.integer",
  algorithm: "string",
  key_id: "string",
  nonce: "string",
  ciphertext: "string",
});

const EnvelopeMap = type({ "[string]": Envelope });

const ToolResult = type({
  call_id: "string",
  "content?": "string",
  "is_error?": "boolean",
  "decision?": "'approved' | 'rejected'",
});

const ApprovalDecision = type({
  approval_id: "string",
  decision: "'approved' | 'rejected'",
  "reason?": "string | null",
});

const InjectedMessage = type({ "text?": "string", "ciphertext?": Envelope });

export const ContinueRequestSchema = type({
  type: "'tool_results'",
  data: { results: ToolResult.array(), "encrypted?": EnvelopeMap },
}).or({
  type: "'approval_decisions'",
  data: { decisions: ApprovalDecision.array(), "encrypted?": EnvelopeMap },
}).or({
  type: "'decrypted'",
  data: { plaintext: { "[string]": "string" }, "encrypted?": EnvelopeMap },
}).or({
  type: "'sealed'",
  data: { encrypted: EnvelopeMap },
}).or({
  type: "'inject'",
  data: { messages: InjectedMessage.array() },
}).or({
  type: "'break'",
}).onDeepUndeclaredKey("delete");

/** Validates a parsed JSON object into a `Continuation` (422 `invalid_request` otherwise). */
export function parseContinueRequest(body: unknown): Outcome<Continuation> {
  const out = ContinueRequestSchema(body);
  if (out instanceof type.errors) {
    const issues = out.map((e) => ({ path: formatPath(e.path), message: e.message }));
    const first = issues[0];
    return fail(
      "invalid_request",
      `invalid continuation: ${first.message}`,
      { path: first.path, issues },
    );
  }
  return ok(out as Continuation);
}
