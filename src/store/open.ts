import type { Db } from "./db.ts";
import type { PgliteAssets } from "./pglite_driver.ts";
import { openPostgres } from "./postgres_driver.ts";

/**
 * A PostgreSQL URL wins; otherwise the embedded store at `storagePath`. The
 * embedded store's module is loaded only when it is used, so an instance on
 * PostgreSQL never holds PGlite in memory.
 */
export async function openStore(
  options: { databaseUrl?: string; storagePath: string },
  pgliteAssets?: () => Promise<PgliteAssets>,
): Promise<Db> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl);
  const { openPglite } = await import("./pglite_driver.ts");
  return await openPglite(options.storagePath, await pgliteAssets?.());
}
