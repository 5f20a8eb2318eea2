import type { Db } from "./db.ts";
import { openPglite, type PgliteAssets } from "./pglite_driver.ts";
import { openPostgres } from "./postgres_driver.ts";

/** A PostgreSQL URL wins; otherwise the embedded store at `storagePath`. */
export async function openStore(
  options: { databaseUrl?: string; storagePath: string },
  pgliteAssets?: () => Promise<PgliteAssets>,
): Promise<Db> {
  return options.databaseUrl
    ? openPostgres(options.databaseUrl)
    : await openPglite(options.storagePath, await pgliteAssets?.());
}
