/**
 * The errors and small readers every compatible surface's translation uses.
 * A malformed field is `invalid_request`, and so is a field the API defines
 * but the service cannot honour, named (`details.unsupported`); each surface
 * answers both with 400 (decisions.md §12).
 */
import { type Failure, failure, ServiceError } from "../core/errors.ts";
import type { ModelAnswer, TurnResult } from "../engine/turn_context.ts";
import type { ImagePart } from "../providers/types.ts";

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** An optional object field: absent gives `fallback`; anything but an object is refused. */
export function objectOr(
  v: unknown,
  path: string,
  fallback: Record<string, unknown>,
): Record<string, unknown> {
  if (v === undefined || v === null) return fallback;
  if (!isObject(v)) throw invalid(path, "an object");
  return v;
}

export function invalid(path: string, expected: string): ServiceError {
  return ServiceError.of("invalid_request", `invalid ${path}: expected ${expected}`, { path });
}

/**
 * A number the API bounds, checked as the API itself checks it: outside the
 * range is a 400 saying the range (decisions.md §12), before any provider.
 */
export function boundedNumber(
  body: Record<string, unknown>,
  field: string,
  min: number,
  max: number = Infinity,
): number | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isFinite(v)) throw invalid(field, "a number");
  if (v < min || v > max) {
    throw ServiceError.of(
      "invalid_request",
      `invalid ${field}: ${v} is out of range; expected ${
        max === Infinity ? `a number of at least ${min}` : `a number from ${min} to ${max}`
      }`,
      { path: field, ...(max === Infinity ? { minimum: min } : { minimum: min, maximum: max }) },
    );
  }
  return v;
}

/** A message the API itself refuses (one without content, a result of no call), naming it. */
export function refusedMessage(path: string, why: string): ServiceError {
  return ServiceError.of("invalid_request", `invalid ${path}: ${why}`, { path });
}

export function unsupported(path: string, what: string): ServiceError {
  return ServiceError.of(
    "invalid_request",
    `unsupported parameter: ${what} is not supported by this service; leave it out`,
    { path, unsupported: true },
  );
}

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/** An inline `data:` URL as an image part; null for any other URL. */
export function dataUrlImage(url: string): ImagePart | null {
  const m = DATA_URL.exec(url);
  return m === null ? null : { mediaType: m[1], data: m[2] };
}

/**
 * What a turn cut by another request of its session (a native `break` or
 * `inject`) answers on a compatible surface, which has no `idle`: the user's
 * own act, so a 400 the SDKs do not retry (decisions.md §12: never a 409).
 */
export function interruptedTurn(sessionId: string): Failure {
  return failure(
    "turn_interrupted",
    `turn interrupted: the turn was stopped by a break on session ${sessionId} ` +
      "(a native break or inject) before it answered; what it produced is kept in the " +
      "session, marked interrupted",
    { session_id: sessionId },
  );
}

/** The turn's answer; a failure or a cut turn is thrown, for the surface's error shape. */
export function answerOf(result: TurnResult, interrupted: Failure): ModelAnswer {
  if (result.kind === "answer") return result.answer;
  throw new ServiceError(result.kind === "failure" ? result.failure : interrupted);
}

/** The failure a stream ends with when its turn did not answer. */
export function streamFailure(
  result: Exclude<TurnResult, { kind: "answer" }>,
  interrupted: Failure,
): Failure {
  return result.kind === "failure" ? result.failure : interrupted;
}
