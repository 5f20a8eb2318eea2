import type { ErrorCode } from "./types.ts";

/**
 * Codes the client itself raises: `network_error` when the service could not
 * be reached or a stream broke off before its `turn_end`, `invalid_response`
 * when an answer was not what the interface promises, `missing_key` when an
 * encrypted session is driven without its key.
 */
export type ClientErrorCode = "network_error" | "invalid_response" | "missing_key";

/**
 * Every failure the client reports: the service's error envelope (`code`,
 * HTTP `status`, `details`), a run that ended in `error` (status 0: the turn
 * answered 200 and its `turn_end` carried the error), or a client-side code.
 * Match on `code`; `message` is for people. `retryAfterSeconds` is the
 * answer's `Retry-After` header (a 429 says when to try again).
 */
export class SwitchyardError extends Error {
  override readonly name = "SwitchyardError";
  readonly retryAfterSeconds?: number;
  constructor(
    readonly code: ErrorCode | ClientErrorCode,
    message: string,
    readonly status = 0,
    readonly details?: Record<string, unknown>,
    options?: { cause?: unknown; retryAfterSeconds?: number },
  ) {
    super(message, options);
    if (options?.retryAfterSeconds !== undefined) {
      this.retryAfterSeconds = options.retryAfterSeconds;
    }
  }
}

/** `Retry-After` in seconds: a count of seconds, or an HTTP date counted from `now`. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  const value = header?.trim() ?? "";
  if (value === "") return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The error a non-2xx answer carries, from its envelope when it has one. */
export async function errorFromResponse(response: Response): Promise<SwitchyardError> {
  const text = await response.text().catch(() => "");
  try {
    const { error } = JSON.parse(text);
    if (typeof error?.code === "string" && typeof error?.message === "string") {
      return new SwitchyardError(error.code, error.message, response.status, error.details, {
        retryAfterSeconds: retryAfterSeconds(response.headers.get("retry-after")),
      });
    }
  } catch { /* not an envelope: reported below */ }
  return new SwitchyardError(
    "invalid_response",
    `unexpected answer: HTTP ${response.status} without an error envelope`,
    response.status,
  );
}
