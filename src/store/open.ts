import type { Db } from "./db.ts";
import type { PgliteAssets } from "./pglite_driver.ts";
import { openPgliteThread, type PgliteThreadOptions } from "./pglite_thread.ts";
import { openPostgres } from "./postgres_driver.ts";

/**
 * A PostgreSQL URL wins; otherwise the embedded store at `storagePath`, on a
 * thread of its own (pglite_thread.ts), so an instance on PostgreSQL never
 * holds PGlite in memory.
 */
export async function openStore(
  options: {
    databaseUrl?: string;
    databaseMaxConnections: number;
    databaseStatementTimeoutMs: number;
    storagePath: string;
    storageFsync: boolean;
  },
  embedded: {
    assets?: () => Promise<PgliteAssets>;
    workerModule?: string;
    onMaintenance?: PgliteThreadOptions["onMaintenance"];
    onEvent?: PgliteThreadOptions["onEvent"];
  } = {},
): Promise<Db> {
  if (options.databaseUrl) {
    return openPostgres(options.databaseUrl, {
      maxConnections: options.databaseMaxConnections,
      statementTimeoutMs: options.databaseStatementTimeoutMs,
    });
  }
  return await openPgliteThread(options.storagePath, {
    assets: await embedded.assets?.(),
    workerModule: embedded.workerModule,
    fsync: options.storageFsync,
    onMaintenance: embedded.onMaintenance,
    onEvent: embedded.onEvent,
  });
}
