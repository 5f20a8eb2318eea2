import type { Db } from "./db.ts";
import { openPglite } from "./pglite_driver.ts";
import { openPostgres } from "./postgres_driver.ts";

/** A PostgreSQL URL wins; otherwise the embedded store at `storagePath`. */
export async function openStore(
  options: { databaseUrl?: string; storagePath: string },
): Promise<Db> {
  return options.databaseUrl
    ? openPostgres(options.databaseUrl)
    : await openPglite(options.storagePath);
}
