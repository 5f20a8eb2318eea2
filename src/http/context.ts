import type { Failure } from "../core/errors.ts";
import type { TokenCheck } from "../engine/claim_auth.ts";
import type { Deps } from "../deps.ts";
import type { TurnReading } from "../store/run_admission.ts";
import type { SessionRow } from "../store/sessions.ts";
import type { PhaseClock } from "../telemetry/phase_clock.ts";
import type { Params } from "./router.ts";

export type { Deps };

export interface Principal {
  userId: string;
  tokenId: string;
  /**
   * The session the path names, read with the token (null: none of this
   * user's); absent when the path names none or the handler did not read it.
   */
  session?: SessionRow | null;
  /** That session's history and recalled memory, read with it for an endpoint that `readsTurn`. */
  reading?: TurnReading;
  /**
   * Present when the token was not read (an endpoint whose claim checks it,
   * `claimChecksToken`): `userId` is who this instance took it for, and the
   * token holds only once the claim said so.
   */
  unchecked?: TokenCheck;
  /**
   * Present when the API key was not read (an endpoint whose turn's read
   * checks it, `readChecksKey`): `userId` is the key's own, and the key holds
   * only once that read said so.
   */
  uncheckedKey?: KeyCheck;
}

/** An API key a compatible turn's read is to check, and whether it did. */
export interface KeyCheck {
  /** The SHA-256 of the key's secret, as `api_keys.secret_hash` stores it. */
  digest: string;
  checked: boolean;
}

/** The key a turn's read found not to hold: answered as a key read first is (`invalid_api_key`). */
export class KeyRefused extends Error {
  constructor() {
    super("API key refused");
    this.name = "KeyRefused";
  }
}

export interface RequestContext {
  request: Request;
  url: URL;
  params: Params;
  deps: Deps;
  /** Present on every route declared with `auth: "bearer"`. */
  principal: Principal;
  /** The client's address (see client_address.ts), null when handled in process. */
  address: string | null;
  /** Where the request's time goes, up to its answer (its `Server-Timing` header). */
  timing: PhaseClock;
  /**
   * With `principal.unchecked` or `uncheckedKey`: authenticates the request as one not checked
   * by its claim is (the token and the path's session read, a wrong token
   * counted against the address), throwing what that throws; or the 429 to
   * send.
   */
  confirm?: () => Promise<Principal | Response>;
}

export interface Endpoint {
  /**
   * `key_or_token`: an API key or a session token as bearer (the compatible
   * surfaces); `operator`: the operator token (router.auth.operator_token).
   */
  auth: "none" | "bearer" | "key_or_token" | "operator";
  /** With `key_or_token`, an API key in `x-api-key` too (Anthropic's header). */
  apiKeyHeader?: boolean;
  /**
   * Writes this endpoint's errors in its API's own shape, with that API's
   * status (and the request's id where its body carries one); absent, the
   * native envelope, or under `/v1/` the compatible shape the request asks for.
   */
  renderError?: (failure: Failure, status: number, requestId: string) => Response;
  /** An unauthenticated endpoint limited per client address (router.limits.rate.anonymous_*). */
  limitByAddress?: boolean;
  /** Reads the session's history and memory with the token (one round trip: preview). */
  readsTurn?: boolean;
  /**
   * A turn on the path's session whose claim checks the token (engine/claim_auth.ts):
   * a token this instance authenticated before is not read first (`principal.unchecked`).
   */
  claimChecksToken?: boolean;
  /**
   * A compatible turn whose one read checks the API key (surfaces/compat_turn.ts):
   * a key this instance verified before is not read first (`principal.uncheckedKey`).
   */
  readChecksKey?: boolean;
  handle(ctx: RequestContext): Promise<Response>;
}
