const CREDENTIAL_NAME = /api-key|api_key|apikey|authorization|password|secret|token|x-router/;

/** The first query parameter that looks like a credential (decisions.md §1), if any. */
export function credentialInQuery(url: URL): string | null {
  for (const name of url.searchParams.keys()) {
    if (CREDENTIAL_NAME.test(name.toLowerCase())) return name;
  }
  return null;
}
