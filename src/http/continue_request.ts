/**
 * The body of `POST …/continue` (interface.md): one tagged message
 * `{ type, data }`, `break` with no data. This checks the shape only; whether
 * the kind answers the run's pause is run_admission.ts, and whether the data
 * answers it is continuation_check.ts. Unknown fields are dropped.
 */
import { compiled, object, type } from "./ark.ts";
import type { Continuation } from "../core/continuation.ts";
import { fail, ok, type Outcome } from "../core/errors.ts";
import { formatPath } from "./validation.ts";

/** The encrypted envelope of interface.md, shape only (core/sealed_envelope.ts checks the rest). */
export const Envelope = object({
  version: "number.integer",
  algorithm: "string",
  key_id: "string",
  nonce: "string",
  ciphertext: "string",
});

const EnvelopeMap = object({ "[string]": Envelope });

const ToolResult = object({
  call_id: "string",
  "content?": "string",
  "is_error?": "boolean",
  "decision?": "'approved' | 'rejected'",
});

const ApprovalDecision = object({
  approval_id: "string",
  decision: "'approved' | 'rejected'",
  "reason?": "string | null",
});

const InjectedMessage = object({ "text?": "string", "ciphertext?": Envelope });

const ContinueRequestShape = object({
  type: "'tool_results'",
  data: object({ results: ToolResult.array(), "encrypted?": EnvelopeMap }),
}).or(object({
  type: "'approval_decisions'",
  data: object({ decisions: ApprovalDecision.array(), "encrypted?": EnvelopeMap }),
})).or(object({
  type: "'decrypted'",
  data: object({ plaintext: object({ "[string]": "string" }), "encrypted?": EnvelopeMap }),
})).or(object({
  type: "'sealed'",
  data: object({ encrypted: EnvelopeMap }),
})).or(object({
  type: "'inject'",
  data: object({ messages: InjectedMessage.array() }),
})).or(object({
  type: "'break'",
})).onDeepUndeclaredKey("delete");

export const ContinueRequestSchema = compiled(ContinueRequestShape);

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
