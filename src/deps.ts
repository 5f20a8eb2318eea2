/**
 * The service's dependencies, created once in main.ts and handed to every
 * handler and to the run engine.
 */
import type { Config } from "./config.ts";
import type { Logger } from "./log.ts";
import type { ListingCache } from "./providers/listing.ts";
import type { Registry } from "./providers/registry.ts";
import type { Db } from "./store/db.ts";
import type { HistoryCache } from "./store/history_cache.ts";
import type { SupersedeSignals } from "./store/supersede_signal.ts";
import type { Telemetry } from "./telemetry/telemetry.ts";
import type { WebAssets } from "./http/web_assets.ts";

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
