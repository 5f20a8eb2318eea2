import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import type { ListingCache } from "../providers/listing.ts";
import type { Registry } from "../providers/registry.ts";
import type { Db } from "../store/db.ts";
import type { HistoryCache } from "../store/history_cache.ts";
import type { TurnReading } from "../store/run_admission.ts";
import type { SessionRow } from "../store/sessions.ts";
import type { SupersedeSignals } from "../store/supersede_signal.ts";
import type { Telemetry } from "../telemetry/telemetry.ts";
import type { Params } from "./router.ts";
import type { WebAssets } from "./web_assets.ts";

/** What every handler is given: the service's dependencies, created once in main.ts. */
export interface Deps {
  db: Db;
  config: Config;
  logger: Logger;
  now: () => Date;
  newId: () => string;
  /** The providers of this instance, built once from `config.providers`. */
  registry: Registry;
  /** Provider listings by provider and credential hash; per instance, only a cache. */
  listingCache: ListingCache;
  /** The messages of plaintext sessions this instance read; only a cache. */
  historyCache: HistoryCache;
  /**
   * Supersede signals (LISTEN/NOTIFY on PostgreSQL); absent, the run engine
   * relies on its 250 ms poll of `supersede_seq`.
   */
  signals?: SupersedeSignals;
  /** This instance's name, recorded with its run claims. */
  instanceId?: string;
  /** True once the instance is shutting down: execute and continue answer 503 `shutting_down`. */
  draining?: () => boolean;
  /** The built console and API reference; absent, `/console` and `/docs` answer 404. */
  webAssets?: WebAssets;
  /** Metrics and traces; absent, nothing is reported. */
  telemetry?: Telemetry;
}

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
}

export interface Endpoint {
  auth: "none" | "bearer";
  /** An unauthenticated endpoint limited per client address (router.limits.rate.anonymous_*). */
  limitByAddress?: boolean;
  /** Reads the session's history and memory with the token (one round trip: preview). */
  readsTurn?: boolean;
  handle(ctx: RequestContext): Promise<Response>;
}
