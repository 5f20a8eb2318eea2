/**
 * The catalog one request may route on (decisions.md §5, §11): every provider
 * listed in parallel with this request's credentials, through the
 * per-instance listing cache, so a preview or a turn does not wait on a
 * listing it already has. Preview, execute and GET /llm/models all start here,
 * so they agree on what is available.
 */
import type { ModelDescriptor, UnavailableEntry } from "../core/model.ts";
import type { ProviderCredentials } from "./credentials.ts";
import {
  type ListingCache,
  type ListingResult,
  listingTimeoutMs,
  listModels,
  routingCatalog,
} from "./listing.ts";
import { isWellFormedProviderId } from "../core/model_reference.ts";
import type { Registry } from "./registry.ts";

export interface RequestCatalogOptions {
  /** The listing cache of this service instance; absent lists afresh. */
  cache?: ListingCache;
  /** Per-provider listing deadline in ms; default from `listingTimeoutMs(undefined)`. */
  deadlineMs?: number;
  fetch?: typeof fetch;
}

/**
 * What the core needs about providers for one request. The fields named like
 * `TurnDecisionInput`'s can be spread into it:
 * `decideTurn({ request, ...catalogInput(rc), ... })`.
 */
export interface RequestCatalog {
  /** The listed models, plus the shipped catalog of every provider that was not listed. */
  catalog: ModelDescriptor[];
  /** Providers that could not be listed, sorted by id (reason `missing_credentials` included). */
  unavailable: UnavailableEntry[];
  /** Providers a credential header was sent for, sorted. */
  credential_providers: string[];
  /** Every registered provider id, in registry order. */
  known_providers: string[];
  /** The listing as GET /llm/models shows it. */
  listing: ListingResult;
}

/** Lists every provider of `registry` for this request's credentials. */
export async function catalogForRequest(
  registry: Registry,
  credentials: ProviderCredentials,
  options: RequestCatalogOptions = {},
): Promise<RequestCatalog> {
  const listing = await listModels(registry, credentials, {
    deadlineMs: options.deadlineMs ?? listingTimeoutMs(undefined),
    cache: options.cache,
    fetch: options.fetch,
  });
  return {
    catalog: routingCatalog(registry, listing),
    unavailable: listing.unavailable,
    credential_providers: [...credentials.keys()].filter((id) =>
      registry.providers.some((p) => p.id === id)
    ).sort(),
    known_providers: registry.providers.map((p) => p.id),
    listing,
  };
}

/**
 * The provider fields of `TurnDecisionInput` (core/turn_decision.ts) for a
 * request catalog, with the provider-id grammar of the registry.
 */
export function catalogInput(rc: RequestCatalog): {
  catalog: ModelDescriptor[];
  unavailable: UnavailableEntry[];
  credential_providers: string[];
  known_providers: string[];
  is_valid_provider_id: (id: string) => boolean;
} {
  return {
    catalog: rc.catalog,
    unavailable: rc.unavailable,
    credential_providers: rc.credential_providers,
    known_providers: rc.known_providers,
    is_valid_provider_id: isWellFormedProviderId,
  };
}
