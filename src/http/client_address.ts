/** What the runtime entry knows about the connection a request came on. */
export interface Connection {
  /** The peer's IP address, as the runtime reports it. */
  remoteAddress: string;
}

/**
 * The address a per-client limit is keyed by. `X-Forwarded-For` is anyone's to
 * write, so it counts only when the operator says a proxy sets it; then the
 * last entry is the one that proxy appended (earlier ones came from the client).
 * Null when neither is known (a request handled in process).
 */
export function clientAddress(
  request: Request,
  connection: Connection | undefined,
  trustForwardedFor: boolean,
): string | null {
  if (trustForwardedFor) {
    const forwarded = request.headers.get("x-forwarded-for");
    const last = forwarded?.slice(forwarded.lastIndexOf(",") + 1).trim();
    if (last) return last;
  }
  return connection?.remoteAddress ?? null;
}
