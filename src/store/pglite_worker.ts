/**
 * The embedded store's own thread (pglite_thread.ts): PGlite executes every
 * statement synchronously in WASM, so on the request thread it would hold up
 * every other request and stream for as long as a statement runs. Here it
 * answers `query` and `exec` messages in the order they arrive. JSON values
 * cross as their text, named in `json`: a string is copied across in one
 * piece, where a parsed document (a turn's whole history) would be cloned
 * object by object, and the request thread parses it natively.
 */
import type { PGlite } from "@electric-sql/pglite";
import { collectAllGarbage } from "../platform/collect_garbage.ts";
import { createPglite, JSON_TYPES, preparedQueries } from "./pglite_driver.ts";
import type { StoreReply, StoreRequest } from "./pglite_thread.ts";
import { FLUSH_WAL, UNSYNCED_COMMIT } from "./unsynced_commit.ts";

declare const self: {
  onmessage: ((event: MessageEvent<StoreRequest>) => void) | null;
  postMessage(reply: StoreReply): void;
};

/** What an error carries across: its name, message and the driver's fields (code, detail…). */
function plainError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { name: "Error", message: String(error) };
  const fields: Record<string, unknown> = { name: error.name, message: error.message };
  for (const [key, value] of Object.entries(error)) {
    if (value === null || ["string", "number", "boolean"].includes(typeof value)) {
      fields[key] = value;
    }
  }
  return fields;
}

/**
 * Whether PGlite may not be used after `error`: PostgreSQL ended its session
 * (a PANIC, as when it cannot write its write-ahead log, or FATAL), or the
 * WASM instance itself aborted. A server would restart; the next statement
 * sent to this PGlite would spin for ever instead.
 */
function isFatal(error: unknown): boolean {
  const severity = (error as { severity?: unknown } | null)?.severity;
  return severity === "PANIC" || severity === "FATAL" || error instanceof WebAssembly.RuntimeError;
}

/** Closes the host files of a PGlite that may not be used again, without running it further. */
function abandon(pg: PGlite): void {
  try {
    (pg as unknown as { Module: { FS: { quit(): void } } }).Module.FS.quit();
  } catch { /* its files close with the thread */ }
}

let db: PGlite | null = null;
let query: ReturnType<typeof preparedQueries>;
/** The id of a reply that answers no statement. */
const NO_STATEMENT = -1;
/** A statement committed unsynced since the WAL was last flushed here. */
let unflushed = false;

/**
 * Flushes what an unsynced commit left once no transaction is open, after its
 * answer went back: the request thread goes on meanwhile, and the next
 * statement waits for the flush as for any statement before it. A flush that
 * stops PostgreSQL (a PANIC on a full disk) is reported as a statement's
 * would be, with no statement waiting on it, so the store starts again.
 */
async function flushUnsynced(text: string): Promise<void> {
  if (text.includes(UNSYNCED_COMMIT)) unflushed = true;
  if (!unflushed || db === null || db.isInTransaction()) return;
  unflushed = false;
  try {
    await query(FLUSH_WAL);
  } catch (error) {
    unflushed = true;
    if (db === null || !isFatal(error)) return;
    abandon(db);
    db = null;
    self.postMessage({ id: NO_STATEMENT, error: plainError(error), fatal: true });
  }
}

self.onmessage = async ({ data: request }) => {
  try {
    switch (request.kind) {
      case "open":
        db = await createPglite(request.path, request.assets, {
          jsonAsText: true,
          fsync: request.fsync,
        });
        query = preparedQueries(db);
        // A new store is written from the template (40 MB unpacked), which would stay resident
        // until memory pressure. A worker has a heap of its own: the request thread's collection
        // does not reach it.
        collectAllGarbage();
        return self.postMessage({ id: request.id, rows: [] });
      case "query": {
        const { rows, fields } = await query(request.text, request.params);
        const json = fields.filter((f) => JSON_TYPES.has(f.dataTypeID)).map((f) => f.name);
        self.postMessage({ id: request.id, rows, ...(json.length > 0 ? { json } : {}) });
        return await flushUnsynced(request.text);
      }
      case "exec":
        await db!.exec(request.text);
        return self.postMessage({ id: request.id, rows: [] });
      case "close":
        await db?.close();
        db = null;
        return self.postMessage({ id: request.id, rows: [] });
    }
  } catch (error) {
    const fatal = db !== null && (request.kind === "query" || request.kind === "exec") &&
      isFatal(error);
    if (fatal) {
      abandon(db!);
      db = null;
    }
    self.postMessage({ id: request.id, error: plainError(error), ...(fatal ? { fatal } : {}) });
  }
};
