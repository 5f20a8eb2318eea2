/**
 * A turn whose claim is also its authentication: the bearer token was not
 * read before the turn, and the claim takes the session only if the token
 * holds and the session is a live plaintext session of the token's user
 * (migrations/functions/claims.sql). Nothing is written otherwise.
 */
import type { ClaimAuth, ClaimRefusal } from "../store/run_admission.ts";

/** The token a turn's claim is to check, and whether it did (set once the claim answered). */
export interface TokenCheck {
  token: ClaimAuth;
  checked: boolean;
}

/**
 * The claim did not hold. The caller authenticates the request as any other
 * is authenticated, which answers the reason in the usual words (or, for a
 * session that turned out encrypted, lets the turn go on as such).
 */
export class ClaimRefused extends Error {
  constructor(readonly reason: ClaimRefusal) {
    super(`claim refused: ${reason}`);
    this.name = "ClaimRefused";
  }
}

/** The claim request's `auth`, for a turn that carries a token to check. */
export function claimAuth(check: TokenCheck | undefined): { auth?: ClaimAuth } {
  return check === undefined ? {} : { auth: check.token };
}

/** Notes that the claim answered; a refusal is thrown (nothing was written). */
export function checkedBy<C extends { kind: string; reason?: ClaimRefusal }>(
  check: TokenCheck | undefined,
  claim: C,
): Exclude<C, { kind: "refused" }> {
  if (check !== undefined) check.checked = true;
  if (claim.kind === "refused") throw new ClaimRefused(claim.reason!);
  return claim as Exclude<C, { kind: "refused" }>;
}
